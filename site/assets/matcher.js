// errdex site: the log-line matcher's core, the same patterns and ranking as `errdex match`.
//
// Loaded two ways. As a Web Worker (the usual way): the page sends the lines, this file matches them and posts
// each line's result as soon as it has it, and the page terminates the worker when the time budget is spent, so
// no pattern and no line can freeze the tab, whatever it costs. As a plain script in the page (when the page cannot
// start a worker, as when it is opened from a file): then only the patterns proven to run in linear time
// (`linear` in api/patterns.json) are used, and the deadline is checked between patterns.
"use strict";

(function (scope) {
  // The patterns this browser can compile, in rank order (literal characters, variable parts, id).
  function compile(data, onlyLinear) {
    const entries = [];
    let skipped = 0;
    for (const entry of data.patterns) {
      if (onlyLinear && !entry.linear) {
        skipped += 1;
        continue;
      }
      try {
        entries.push({ entry, regex: new RegExp(entry.source, entry.flags) });
      } catch (error) {
        // a pattern this browser cannot compile is left out rather than breaking the others
      }
    }
    return { fields: data.fields, entries, skipped };
  }

  function jsonFields(line, fields) {
    const text = line.trimStart();
    if (!text.startsWith("{")) return [];
    try {
      const value = JSON.parse(text);
      if (!value || typeof value !== "object" || Array.isArray(value)) return [];
      return fields.filter((name) => typeof value[name] === "string").map((name) => value[name]);
    } catch (error) {
      return [];
    }
  }

  // Every record whose pattern occurs in the line (or in its JSON message fields), best first. `found` holds
  // positions in `compiled.entries`; `stopped` says the deadline came before every record was tried.
  function matchLine(line, compiled, deadline) {
    const texts = [line, ...jsonFields(line, compiled.fields)];
    const found = [];
    for (let i = 0; i < compiled.entries.length; i++) {
      if (performance.now() > deadline) return { found, stopped: true };
      for (const text of texts) {
        const hit = compiled.entries[i].regex.exec(text);
        if (hit) {
          found.push({ entry: compiled.entries[i].entry, groups: hit.slice(1) });
          break;
        }
      }
    }
    return { found, stopped: false };
  }

  const api = { compile, matchLine };
  scope.errdexMatcher = api;

  if (typeof WorkerGlobalScope !== "undefined" && scope instanceof WorkerGlobalScope) {
    let compiled = null;
    scope.onmessage = async (event) => {
      const job = event.data;
      try {
        if (!compiled) {
          const answer = await fetch(job.patternsUrl);
          if (!answer.ok) throw new Error("api/patterns.json is missing");
          compiled = compile(await answer.json(), false);
        }
        scope.postMessage({ type: "ready", job: job.id, records: compiled.entries.length });
        const deadline = performance.now() + job.budget;
        job.lines.forEach((line, index) => {
          const result = performance.now() > deadline ? { found: [], stopped: true } : matchLine(line, compiled, deadline);
          scope.postMessage({ type: "line", job: job.id, index, result });
        });
        scope.postMessage({ type: "done", job: job.id });
      } catch (error) {
        scope.postMessage({ type: "failed", job: job.id, message: String((error && error.message) || error) });
      }
    };
  }
})(self);
