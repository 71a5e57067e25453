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
    const origins = new Map();  // record id -> its origin expression: the line names its module or class
    let skipped = 0;
    for (const entry of data.patterns) {
      if (onlyLinear && !entry.linear) {
        skipped += 1;
        continue;
      }
      try {
        entries.push({ entry, regex: new RegExp(entry.source, entry.flags) });
        placements.set(entry.id, placementRegex(entry.placement));
        origins.set(entry.id, placementRegex(entry.origin));
      } catch (error) {
        // a pattern this browser cannot compile is left out rather than breaking the others
      }
    }
    let programTag = null;  // the syslog tag naming a line's program (errdex.records.placement.PROGRAM_TAG)
    try {
      programTag = data.programTag ? new RegExp(data.programTag) : null;
    } catch (error) {
      programTag = null;
    }
    const foreignStanding = data.foreignStanding;  // errdex.records.placement.FOREIGN_STANDING
    return { fields: data.fields, entries, placements, origins, programTag, foreignStanding, skipped };
  }

  // The expression of the line naming the record's file and line (`placement` in api/patterns.json), or its
  // module or class (`origin`), written by errdex.records.placement as the index and `errdex match` read them;
  // null when there is none.
  function placementRegex(source) {
    if (!source) return null;
    try {
      return new RegExp(source);
    } catch (error) {
      return null;  // never preferred, as a record without a placement
    }
  }

  // As errdex.match.placement.prefer_placed: a record whose programs (known) do not hold the program the line's
  // syslog tag names goes after every other, then a foreign one (test code, another platform: standing from
  // foreignStanding); then among records tied on (literal characters, variable parts) those whose placement
  // the line holds come first, then those whose origin it holds, then those built into the line's program,
  // then by standing; each group otherwise keeps its order (the record id's).
  function preferPlaced(found, line, placements, programTag, origins, foreignStanding) {
    if (found.length < 2) return found;
    const tag = programTag ? programTag.exec(line) : null;
    const program = tag ? tag[1].toLowerCase() : null;
    const programs = (f) => f.entry.programs || [];
    const excluded = (f) => Boolean(program && programs(f).length && !programs(f).includes(program));
    const far = foreignStanding === undefined ? Infinity : foreignStanding;
    const tier = (f) => (excluded(f) ? 2 : ((f.entry.standing || 0) >= far ? 1 : 0));
    const list = [0, 1, 2].flatMap((t) => found.filter((f) => tier(f) === t));
    const holds = (map, f) => {
      const regex = map ? map.get(f.entry.id) : null;
      return Boolean(regex && regex.test(line));
    };
    const key = (f) => [holds(placements, f) ? 0 : 1, holds(origins, f) ? 0 : 1,
      program && programs(f).includes(program) ? 0 : 1, f.entry.standing || 0];
    const ranked = [];
    let start = 0;
    while (start < list.length) {
      const first = list[start];
      let end = start + 1;
      while (end < list.length && tier(list[end]) === tier(first) &&
             list[end].entry.literalChars === first.entry.literalChars &&
             list[end].entry.variableParts === first.entry.variableParts) end += 1;
      const group = list.slice(start, end).map((f, position) => ({ f, position, k: end - start > 1 ? key(f) : [] }));
      group.sort((a, b) => {
        for (let i = 0; i < a.k.length; i++) if (a.k[i] !== b.k[i]) return a.k[i] - b.k[i];
        return a.position - b.position;
      });
      ranked.push(...group.map((g) => g.f));
      start = end;
    }
    return ranked;
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
    return {
      found: preferPlaced(found, line, compiled.placements, compiled.programTag, compiled.origins,
        compiled.foreignStanding),
      stopped: false,
    };
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
