// errdex site: the log-line matcher's core, the same patterns and ranking as `errdex match` (ties for first place
// broken by where the line says it was written, as there and in the index's errdex_match).
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
    const placements = new Map();  // record id -> its placement expression (or null)
    let skipped = 0;
    for (const entry of data.patterns) {
      if (onlyLinear && !entry.linear) {
        skipped += 1;
        continue;
      }
      try {
        entries.push({ entry, regex: new RegExp(entry.source, entry.flags) });
        placements.set(entry.id, placementRegex(entry));
      } catch (error) {
        // a pattern this browser cannot compile is left out rather than breaking the others
      }
    }
    return { fields: data.fields, entries, placements, skipped };
  }

  // The expression of the line naming the record's file and line (`placement` in api/patterns.json, written by
  // errdex.records.placement as the index and `errdex match` read it), or null.
  function placementRegex(entry) {
    if (!entry.placement) return null;
    try {
      return new RegExp(entry.placement);
    } catch (error) {
      return null;  // never preferred, as a record without a placement
    }
  }

  // The records tied for first place (literal characters, variable parts) whose placement the line holds come
  // ahead of the others tied, in their order; nothing else moves (as errdex.match.placement.prefer_placed).
  function preferPlaced(found, line, placements) {
    if (found.length < 2) return found;
    const first = found[0].entry;
    let tied = 0;
    while (tied < found.length && found[tied].entry.literalChars === first.literalChars &&
           found[tied].entry.variableParts === first.variableParts) tied += 1;
    if (tied < 2) return found;
    const top = found.slice(0, tied);
    const named = (f) => {
      const regex = placements.get(f.entry.id);
      return Boolean(regex && regex.test(line));
    };
    const placed = top.filter(named);
    if (!placed.length) return found;
    return [...placed, ...top.filter((f) => !placed.includes(f)), ...found.slice(tied)];
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
    return { found: preferPlaced(found, line, compiled.placements), stopped: false };
  }

  const api = { compile, matchLine, preferPlaced };
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
