// errdex site: search, the log-line matcher, copy buttons, the quality filter.
// Every page reads without this file; it only adds what needs a script. Record text is only ever set with
// textContent, never as HTML.

const root = document.body.dataset.root || "./";

function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

// ---- search: errdex's own index (see toolkit/errdex/site/search.py for its layout) -------------------------

const siteBase = new URL(root, location.href);
const cache = new Map();

async function fetchJson(path) {
  if (!cache.has(path)) {
    cache.set(path, fetch(new URL(path, siteBase)).then((r) => (r.ok ? r.json() : null)).catch(() => null));
  }
  return cache.get(path);
}

// The same words as the index: runs of letters and digits, lowercased; single letters are dropped.
function words(text) {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) || []).filter((w) => w.length > 1 || /^\p{N}$/u.test(w));
}

// The stemmer of toolkit/errdex/site/search.py (_strip, _compound, stem): a test checks they agree.
const PARTICLES = ["out", "up", "down", "off"];
const VOWELS = "aeiouy";

function stripWord(word) {
  if (word.length <= 3) return word;
  if (word.endsWith("ies") && word.length > 4) word = word.slice(0, -3) + "y";
  else if (["sses", "xes", "ches", "shes", "zes"].some((s) => word.endsWith(s))) word = word.slice(0, -2);
  else if (word.endsWith("s") && !["ss", "us", "is"].some((s) => word.endsWith(s))) word = word.slice(0, -1);
  for (const suffix of ["ing", "ed"]) {
    const rest = word.slice(0, -suffix.length);
    if (word.endsWith(suffix) && rest.length >= 3 && [...rest].some((c) => VOWELS.includes(c))) {
      word = rest;
      break;
    }
  }
  if (word.length > 3 && word.endsWith("e")) word = word.slice(0, -1);
  const last = word[word.length - 1];
  if (word.length > 3 && last === word[word.length - 2] && !VOWELS.includes(last)) word = word.slice(0, -1);
  return word;
}

function stem(word) {
  if (!/^[a-z]+$/.test(word)) return word;
  let whole = word;
  if (whole.endsWith("s") && PARTICLES.some((p) => whole.slice(0, -1).endsWith(p))) whole = whole.slice(0, -1);
  for (const particle of PARTICLES) {
    const rest = whole.slice(0, -particle.length);
    if (whole.endsWith(particle) && rest.length >= 3) return stripWord(rest) + particle;
  }
  return stripWord(word);
}

function shardFile(prefix) {
  return "search/terms-" + [...prefix].map((c) => c.codePointAt(0).toString(16)).join("-") + ".json";
}

const MAX_EXPANSIONS = 50;
const PAGE_SIZE = 20;

async function shardOf(term, meta) {
  const prefix = [...term].slice(0, meta.prefix).join("");
  if (!meta.shards.includes(prefix)) return { t: {}, w: {} };
  return (await fetchJson(shardFile(prefix))) || { t: {}, w: {} };
}

// Document number -> score for one word's term; as a prefix, the terms it starts (the term itself counts
// double); the word as written, when it is not its own stem, adds its score again.
async function postings(term, asPrefix, meta, word) {
  const shard = await shardOf(term, meta);
  const scores = new Map();
  const matching = asPrefix ? Object.keys(shard.t).filter((t) => t.startsWith(term)).slice(0, MAX_EXPANSIONS)
                            : (shard.t[term] ? [term] : []);
  for (const found of matching) {
    const list = shard.t[found];
    const weight = found === term ? 2 : 1;
    for (let i = 0; i < list.length; i += 2) {
      scores.set(list[i], Math.max(scores.get(list[i]) || 0, list[i + 1] * weight));
    }
  }
  const exact = word !== undefined && word !== term && shard.x ? shard.x[word] || [] : [];
  for (let i = 0; i < exact.length; i += 2) {
    if (scores.has(exact[i])) scores.set(exact[i], scores.get(exact[i]) + exact[i + 1] * 2);
  }
  return scores;
}

// Edits between two words (insert, delete, substitute, swap two neighbours), up to limit + 1.
function distance(a, b, limit) {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const rows = [[...Array(b.length + 1).keys()]];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      let best = Math.min(rows[i - 1][j] + 1, row[j - 1] + 1, rows[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2][j - 2] + 1);
      row.push(best);
    }
    rows.push(row);
  }
  return rows[a.length][b.length];
}

// The known term nearest to a word no record has (one edit, two for long words), looked up in the shards
// that share its first letter; null when none is near. The word shown is one the term came from.
async function nearest(word, meta) {
  const limit = word.length >= 7 ? 2 : 1;
  if (word.length < 3 || !/^\p{L}/u.test(word)) return null;
  const first = [...word][0];
  const prefixes = meta.shards.filter((p) => [...p][0] === first).slice(0, 40);
  let best = null;
  for (const prefix of prefixes) {
    const shard = (await fetchJson(shardFile(prefix))) || { t: {}, w: {} };
    for (const [term, list] of Object.entries(shard.t)) {
      const shown = shard.w[term] || term;
      const edits = Math.min(distance(word, term, limit), distance(word, shown, limit));
      if (edits > limit) continue;
      const key = [edits, -list.length, term];
      if (!best || key[0] < best.key[0] || (key[0] === best.key[0] && (key[1] < best.key[1] ||
          (key[1] === best.key[1] && key[2] < best.key[2])))) best = { key, term, shown };
    }
  }
  return best;
}

// Every matching document, best first, and the corrections made: [{asked, shown}].
async function search(query) {
  const meta = await fetchJson("search/meta.json");
  if (!meta) throw new Error("the search index is missing");
  const asked = words(query);
  if (!asked.length) return { ranked: [], complete: 0, corrected: [], meta };
  const corrected = [];
  const lists = await Promise.all(asked.map(async (word, i) => {
    const last = i === asked.length - 1;
    const term = stem(word);
    let list = await postings(term, last, meta, word);
    if (last && term !== word) {
      for (const [doc, score] of await postings(word, true, meta)) list.set(doc, Math.max(list.get(doc) || 0, score));
    }
    if (!list.size) {
      const near = await nearest(word, meta);
      if (near) {
        corrected.push({ asked: word, shown: near.shown });
        list = await postings(near.term, false, meta);
      }
    }
    return list;
  }));
  // Documents with every word first; then those with the rarer words (a word in fewer documents tells
  // more); then by score, each word's weighed by its rarity.
  const found = new Map();
  for (const list of lists) {
    const rarity = Math.log(1 + meta.documents / Math.max(1, list.size));
    for (const [doc, score] of list) {
      const [count, rare, sum] = found.get(doc) || [0, 0, 0];
      found.set(doc, [count + 1, rare + rarity, sum + score * rarity]);
    }
  }
  const all = lists.length;
  const order = [...found].sort((a, b) => (b[1][0] === all) - (a[1][0] === all) || b[1][1] - a[1][1] ||
                                          b[1][2] - a[1][2] || a[0] - b[0]);
  const ranked = order.map(([doc]) => doc);
  const complete = order.filter(([, [count]]) => count === all).length;
  return { ranked, complete, corrected, meta };
}

async function documents(ranked, meta, start, count) {
  return Promise.all(ranked.slice(start, start + count).map(async (doc) => {
    const shard = await fetchJson(`search/docs-${Math.floor(doc / meta.docsPerShard)}.json`);
    const [url, title, errorClass, excerpt] = shard[doc % meta.docsPerShard];
    return { url, title, errorClass, excerpt };
  }));
}

// The excerpt as text, with the query's words (and their stems) marked.
function marked(text, query) {
  const asked = words(query).flatMap((w) => [w, stem(w)]).filter((w) => w.length > 1);
  const out = [];
  for (const part of text.split(/([\p{L}\p{N}]+)/u)) {
    const lower = part.toLowerCase();
    const hit = asked.some((w) => lower.startsWith(w));
    out.push(hit ? element("mark", part) : document.createTextNode(part));
  }
  return out;
}

function resultItem(result, query) {
  const item = element("li");
  const link = element("a", result.title);
  link.href = new URL(result.url, siteBase).href;
  const excerpt = element("p");
  excerpt.append(element("span", result.errorClass + ": ", "muted"), ...marked(result.excerpt, query));
  item.append(link, excerpt);
  return item;
}

function setUpSearch() {
  const box = document.getElementById("search");
  if (!box) return;
  box.hidden = false;
  const input = document.getElementById("search-input");
  const status = document.getElementById("search-status");
  const hint = document.getElementById("search-hint");
  const list = document.getElementById("search-results");
  const more = document.getElementById("search-more");
  let latest = 0;
  let timer = null;
  let current = null;

  function describe() {
    const total = current.ranked.length;
    const shown = list.children.length;
    const some = total - current.complete;
    status.textContent = `${current.complete} record${current.complete === 1 ? "" : "s"} found` +
      (some ? `, ${some} more with some of the words` : "") + (total > shown ? `; ${shown} shown` : "");
    more.hidden = shown >= total;
  }
  async function showMore() {
    const ticket = latest;
    const found = await documents(current.ranked, current.meta, list.children.length, PAGE_SIZE);
    if (ticket !== latest) return;
    list.append(...found.map((result) => resultItem(result, current.query)));
    describe();
  }
  async function run() {
    const query = input.value.trim();
    const ticket = ++latest;
    if (!query) {
      list.replaceChildren();
      status.textContent = "";
      hint.textContent = "";
      more.hidden = true;
      return;
    }
    try {
      const found = await search(query);
      if (ticket !== latest) return;
      current = { ...found, query: query + " " + found.corrected.map((c) => c.shown).join(" ") };
      hint.textContent = found.corrected.length ? "No record has " + found.corrected.map(
        (c) => `“${c.asked}”; showing results for “${c.shown}”`).join(", ") + "." : "";
      list.replaceChildren();
      await showMore();
    } catch (error) {
      status.textContent = `Search is unavailable: ${error.message}`;
    }
  }
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(run, 100);
  });
  more.addEventListener("click", () => showMore());
  const asked = new URLSearchParams(location.search).get("q");
  if (asked) {
    input.value = asked;
    run();
  }
}

// ---- matcher: the same patterns and ranking as `errdex match` (the core is assets/matcher.js) -------------
//
// The matching runs in a Web Worker, and the page terminates the worker when the budget is spent: a pattern that
// backtracks on a pasted line can cost the worker, never the page, and the page says which lines were stopped.
// Where no worker can start (a page opened from a file), assets/matcher.js runs in the page with only the patterns
// proven to take linear time, checking the deadline between patterns.

const BUDGET_MS = 1000;      // matching time per paste; then the worker is stopped and the page says so
const LOAD_MS = 10000;       // loading and compiling the patterns, before the budget starts
let matchWorker = null;      // kept between pastes; replaced after it is stopped
let jobs = 0;
let supersede = null;        // ends the paste in flight when a new one starts (its timers, its worker)

function loadScript(path) {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = new URL(path, siteBase).href;
    script.onload = resolve;
    script.onerror = () => reject(new Error(`${path} is missing`));
    document.head.append(script);
  });
}

function startWorker() {
  try {
    return new Worker(new URL("assets/matcher.js", siteBase));
  } catch (error) {
    return null;  // blocked (file://, a strict policy): the in-page fallback takes over
  }
}

// Match the lines in a worker: resolves to { results, stopped, why } where results[i] is the result of line i
// (undefined when the worker was stopped before it).
function matchInWorker(lines) {
  if (supersede) supersede();
  return new Promise((resolve, reject) => {
    if (!matchWorker) matchWorker = startWorker();
    const worker = matchWorker;
    if (!worker) {
      reject(new Error("no worker"));
      return;
    }
    const id = ++jobs;
    const results = new Array(lines.length);
    let timer = null;
    let ready = false;
    function finish(value) {
      clearTimeout(timer);
      if (supersede === cancel) supersede = null;
      worker.onmessage = worker.onerror = null;
      resolve(value);
    }
    // A newer paste: this one's answer is no longer wanted, and its worker may be stuck on a line, so it goes.
    function cancel() {
      worker.terminate();
      if (matchWorker === worker) matchWorker = null;
      finish({ results, stopped: true, why: "a newer paste replaced this one", superseded: true });
    }
    supersede = cancel;
    function stop(why) {
      worker.terminate();  // the hard stop: whatever the worker is doing ends here
      if (matchWorker === worker) matchWorker = null;
      finish({ results, stopped: true, why });
    }
    worker.onmessage = (event) => {
      const message = event.data;
      if (message.job !== id) return;
      if (message.type === "ready") {
        ready = true;
        clearTimeout(timer);
        timer = setTimeout(() => stop(`matching took more than its ${BUDGET_MS / 1000}-second budget`), BUDGET_MS);
      } else if (message.type === "line") {
        results[message.index] = message.result;
      } else if (message.type === "done") {
        finish({ results, stopped: false, why: "" });
      } else if (message.type === "failed") {
        clearTimeout(timer);
        if (supersede === cancel) supersede = null;
        worker.onmessage = worker.onerror = null;
        reject(new Error(message.message));
      }
    };
    worker.onerror = (event) => {
      event.preventDefault();
      clearTimeout(timer);
      if (supersede === cancel) supersede = null;
      worker.onmessage = worker.onerror = null;
      worker.terminate();
      if (matchWorker === worker) matchWorker = null;
      reject(new Error(ready ? "the matcher failed" : "no worker"));
    };
    timer = setTimeout(() => stop("the patterns took too long to load"), LOAD_MS);
    worker.postMessage({ id, lines, budget: BUDGET_MS, patternsUrl: new URL("api/patterns.json", siteBase).href });
  });
}

let inPage = null;

// The fallback: the core in this page, only patterns proven linear, the deadline checked between patterns.
async function matchInPage(lines) {
  if (!inPage) {
    if (!self.errdexMatcher) await loadScript("assets/matcher.js");
    if (!self.errdexPatterns) await loadScript("api/patterns.js");  // a script: it loads from a file too
    inPage = self.errdexMatcher.compile(self.errdexPatterns, true);
  }
  const deadline = performance.now() + BUDGET_MS;
  const results = lines.map((line) => self.errdexMatcher.matchLine(line, inPage, deadline));
  const stopped = results.some((r) => r.stopped);
  return { results, stopped, why: stopped ? `matching took more than its ${BUDGET_MS / 1000}-second budget` : "",
           skipped: inPage.skipped };
}

function substitute(text, groups) {
  return text.replace(/\$([1-9])|\{([1-9])\}/g, (whole, a, b) => {
    const value = groups[Number(a || b) - 1];
    return value === undefined || value === null ? whole : value;
  });
}

function showMatch(line, number, result, why, cut) {
  const box = element("div", null, "match-result");
  box.append(element("p", `Line ${number}: ${line.length > 300 ? line.slice(0, 297) + "…" : line}`, "muted"));
  if (!result) {
    box.append(element("p", `Stopped: ${why}, before this line was matched; nothing is known about it.`, "stopped"));
    return box;
  }
  if (!result.found.length) {
    box.append(element("p", result.stopped ? `Stopped: ${why}, before every record was tried on this line.`
                                           : cut ? `No record matches the first ${MAX_LINE.toLocaleString("en-US")} characters of this line; ` +
                                                   "the rest was not matched here (errdex match reads all of it)."
                                                 : "No record matches this line.", result.stopped ? "stopped" : null));
    return box;
  }
  const best = result.found[0];
  const heading = element("h3");
  const link = element("a", best.entry.message || best.entry.slug);
  link.href = new URL(best.entry.url, siteBase).href;
  heading.append(link);
  box.append(heading, element("p", `${best.entry.severity} · ${best.entry.errorClass}`, "muted"),
             element("p", best.entry.meaning));
  const fix = element("p");
  fix.append(element("strong", "Fix: "), document.createTextNode(substitute(best.entry.fix, best.groups)));
  box.append(fix);
  if (best.groups.some((g) => g !== undefined)) {
    box.append(element("p", "Captured: " + best.groups.map((g) => (g === undefined ? "-" : g)).join(", "), "captured"));
  }
  if (result.found.length > 1) {
    box.append(element("p", `${result.found.length - 1} other record${result.found.length > 2 ? "s" : ""} also match: ` +
      result.found.slice(1, 6).map((f) => f.entry.message || f.entry.slug).join("; "), "muted"));
  }
  if (result.stopped) box.append(element("p", `Stopped: ${why}; later records were not tried.`, "stopped"));
  return box;
}

function plural(count, word) {
  return `${count.toLocaleString("en-US")} ${word}${count === 1 ? "" : "s"}`;
}

// Many lines: a table of the records they match (message, severity, class, count, first lines, first fix), the
// lines that match nothing collapsed (the same line once, with its count), then each line's answer collapsed
// (open for up to SHOW_EACH lines).
const SHOW_EACH = 10;

function summarise(lines, answer, each) {
  const byRecord = new Map();
  const unmatched = new Map();  // line text -> its line numbers
  let matched = 0;
  lines.forEach((line, i) => {
    const result = answer.results[i];
    if (result && result.found.length) {
      matched += 1;
      const best = result.found[0];
      if (!byRecord.has(best.entry.id)) byRecord.set(best.entry.id, { best, lines: [] });
      byRecord.get(best.entry.id).lines.push(i + 1);
    } else if (result && !result.stopped) {
      if (!unmatched.has(line)) unmatched.set(line, []);
      unmatched.get(line).push(i + 1);
    }
  });
  const unmatchedCount = [...unmatched.values()].reduce((n, numbers) => n + numbers.length, 0);
  const overview = element("section", null, "match-overview");
  overview.setAttribute("aria-label", "Summary of the pasted lines");
  overview.append(element("p", `${plural(lines.length, "line")}: ${matched} matched ${plural(byRecord.size, "record")}` +
    `, ${unmatchedCount} matched none.`, "match-totals"));
  if (byRecord.size) {
    const table = element("table", null, "match-summary");
    const head = element("thead");
    const titles = element("tr");
    for (const title of ["Record", "Lines", "First fix"]) {
      const th = element("th", title);
      th.scope = "col";
      titles.append(th);
    }
    head.append(titles);
    const body = element("tbody");
    const groups = [...byRecord.values()].sort((a, b) => b.lines.length - a.lines.length || a.lines[0] - b.lines[0]);
    for (const { best, lines: numbers } of groups) {
      const row = element("tr");
      const name = element("th");
      name.scope = "row";
      const link = element("a", best.entry.message || best.entry.slug);
      link.href = new URL(best.entry.url, siteBase).href;
      name.append(link, element("br"), element("span", `${best.entry.severity} · ${best.entry.errorClass}`, "muted"));
      const shown = numbers.slice(0, 5).join(", ") + (numbers.length > 5 ? ` and ${numbers.length - 5} more` : "");
      row.append(name, element("td", `${plural(numbers.length, "line")} (${shown})`, "count"),
                 element("td", substitute(best.entry.fix, best.groups)));
      body.append(row);
    }
    table.append(head, body);
    overview.append(table);
  }
  if (unmatched.size) {
    const details = element("details", null, "unmatched");
    details.append(element("summary", `${plural(unmatchedCount, "line")} matched no record` +
      (unmatched.size < unmatchedCount ? ` (${plural(unmatched.size, "different line")})` : "")));
    const list = element("ul");
    for (const [line, numbers] of unmatched) {
      const shown = line.length > 300 ? line.slice(0, 297) + "…" : line;
      const also = numbers.length > 1 ? ` (and ${numbers.length - 1} more)` : "";
      list.append(element("li", `line ${numbers[0]}${also}: ${shown}`));
    }
    details.append(list);
    overview.append(details);
  }
  const all = element("details", null, "match-lines");
  all.open = lines.length <= SHOW_EACH;
  all.append(element("summary", `Each line (${lines.length})`), ...each);
  return [overview, all];
}

// The lines to match (each cut to MAX_LINE characters), which of them were cut, and whether lines were left out.
function pasted(text) {
  const whole = text.split(/\r?\n/).filter((l) => l.trim());
  const kept = whole.slice(0, MAX_LINES);
  return { lines: kept.map((l) => l.slice(0, MAX_LINE)), cut: kept.map((l) => l.length > MAX_LINE),
           more: whole.length > MAX_LINES };
}

const MAX_LINE = 10000;      // characters of a line that are matched (as assets/matcher.js)
const MAX_LINES = 50;        // lines matched per paste

function setUpMatcher() {
  const form = document.getElementById("matcher");
  if (!form) return;
  form.hidden = false;
  const input = document.getElementById("matcher-input");
  const output = document.getElementById("matcher-output");
  let latest = 0;  // only the newest paste writes its answer
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const ticket = ++latest;
    output.replaceChildren(element("p", "Matching…", "muted"));
    const { lines, cut, more } = pasted(input.value);
    if (!lines.length) {
      output.replaceChildren(element("p", "Paste a log line first."));
      return;
    }
    let answer;
    try {
      try {
        answer = await matchInWorker(lines);
      } catch (error) {
        if (error.message !== "no worker") throw error;
        answer = await matchInPage(lines);
      }
    } catch (error) {
      if (ticket === latest) output.replaceChildren(element("p", `The matcher is unavailable: ${error.message}`));
      return;
    }
    if (ticket !== latest || answer.superseded) return;
    const each = lines.map((line, i) => showMatch(line, i + 1, answer.results[i], answer.why, cut[i]));
    const boxes = lines.length > 1 ? summarise(lines, answer, each) : each;
    if (answer.stopped) {
      boxes.unshift(element("p", `Stopped: ${answer.why}. Lines marked "Stopped" were not fully matched; ` +
        "errdex match on the command line has no such limit.", "stopped"));
    }
    if (answer.skipped) {
      boxes.push(element("p", `${answer.skipped} record${answer.skipped === 1 ? "" : "s"} whose patterns are not proven ` +
        "fast were not tried: this page cannot start a worker here (opened from a file?).", "muted"));
    }
    if (more) boxes.push(element("p", `Only the first ${MAX_LINES} lines were matched.`, "muted"));
    output.replaceChildren(...boxes);
  });
}

// ---- copy buttons -------------------------------------------------------------------------------------

function setUpCopyButtons() {
  for (const pre of document.querySelectorAll("pre[data-copy]")) {
    const button = element("button", "Copy", "copy");
    button.type = "button";
    button.setAttribute("aria-label", "Copy this code");
    button.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(pre.querySelector("code").textContent);
        button.textContent = "Copied";
      } catch (error) {
        button.textContent = "Copy failed";
      }
      setTimeout(() => { button.textContent = "Copy"; }, 2000);
    });
    pre.append(button);
  }
}

// ---- quality filter -----------------------------------------------------------------------------------

function setUpQualityFilter() {
  const box = document.getElementById("quality-filter");
  if (!box) return;
  box.hidden = false;
  const input = document.getElementById("quality-filter-input");
  const only = document.getElementById("quality-only-problems");
  const count = document.getElementById("quality-count");
  const rows = [...document.querySelectorAll("table.quality tbody tr")];
  function apply() {
    const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    for (const row of rows) {
      const text = row.textContent.toLowerCase();
      const visible = words.every((w) => text.includes(w)) && (!only.checked || row.dataset.problem === "yes");
      row.hidden = !visible;
      shown += visible ? 1 : 0;
    }
    count.textContent = `${shown} of ${rows.length} records shown`;
  }
  input.addEventListener("input", apply);
  only.addEventListener("change", apply);
  apply();
}

// ---- a link to a collapsed part (a scenario) opens it ----------------------------------------------------

function openLinkedDetails() {
  const id = decodeURIComponent(location.hash.slice(1));
  const target = id && document.getElementById(id);
  const details = target && target.closest("details");
  if (details && !details.open) {
    details.open = true;
    target.scrollIntoView();
  }
}

setUpSearch();
setUpMatcher();
openLinkedDetails();
window.addEventListener("hashchange", openLinkedDetails);
setUpCopyButtons();
setUpQualityFilter();
