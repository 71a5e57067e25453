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

function shardFile(prefix) {
  return "search/terms-" + [...prefix].map((c) => c.codePointAt(0).toString(16)).join("-") + ".json";
}

const MAX_EXPANSIONS = 50;

// Document number -> score for one query word (the last word also matches as a prefix).
async function postings(word, asPrefix, meta) {
  const prefix = [...word].slice(0, meta.prefix).join("");
  const scores = new Map();
  if (!meta.shards.includes(prefix)) return scores;
  const terms = (await fetchJson(shardFile(prefix))) || {};
  const matching = asPrefix ? Object.keys(terms).filter((t) => t.startsWith(word)).slice(0, MAX_EXPANSIONS)
                            : (terms[word] ? [word] : []);
  for (const term of matching) {
    const list = terms[term];
    for (let i = 0; i < list.length; i += 2) scores.set(list[i], Math.max(scores.get(list[i]) || 0, list[i + 1]));
  }
  return scores;
}

async function search(query) {
  const meta = await fetchJson("search/meta.json");
  if (!meta) throw new Error("the search index is missing");
  const asked = words(query);
  if (!asked.length) return [];
  const lists = await Promise.all(asked.map((w, i) => postings(w, i === asked.length - 1, meta)));
  let total = lists[0];
  for (const list of lists.slice(1)) {
    const both = new Map();
    for (const [doc, score] of total) if (list.has(doc)) both.set(doc, score + list.get(doc));
    total = both;
  }
  const ranked = [...total].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  return Promise.all(ranked.slice(0, 20).map(async ([doc]) => {
    const shard = await fetchJson(`search/docs-${Math.floor(doc / meta.docsPerShard)}.json`);
    const [url, title, errorClass, excerpt] = shard[doc % meta.docsPerShard];
    return { url, title, errorClass, excerpt, total: ranked.length };
  }));
}

// The excerpt as text, with the query's words marked.
function marked(text, query) {
  const asked = words(query);
  const out = [];
  for (const part of text.split(/([\p{L}\p{N}]+)/u)) {
    const hit = asked.some((w) => part.toLowerCase().startsWith(w) && w.length > 1);
    out.push(hit ? element("mark", part) : document.createTextNode(part));
  }
  return out;
}

function setUpSearch() {
  const box = document.getElementById("search");
  if (!box) return;
  box.hidden = false;
  const input = document.getElementById("search-input");
  const status = document.getElementById("search-status");
  const list = document.getElementById("search-results");
  let latest = 0;
  let timer = null;
  async function run() {
    const query = input.value.trim();
    const ticket = ++latest;
    if (!query) {
      list.replaceChildren();
      status.textContent = "";
      return;
    }
    try {
      const results = await search(query);
      if (ticket !== latest) return;
      list.replaceChildren(...results.map((result) => {
        const item = element("li");
        const link = element("a", result.title);
        link.href = new URL(result.url, siteBase).href;
        const excerpt = element("p");
        excerpt.append(element("span", result.errorClass + ": ", "muted"), ...marked(result.excerpt, query));
        item.append(link, excerpt);
        return item;
      }));
      const total = results.length ? results[0].total : 0;
      status.textContent = `${total} record${total === 1 ? "" : "s"} found` + (total > results.length ? `, the best ${results.length} shown` : "");
    } catch (error) {
      status.textContent = `Search is unavailable: ${error.message}`;
    }
  }
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(run, 100);
  });
  const asked = new URLSearchParams(location.search).get("q");
  if (asked) {
    input.value = asked;
    run();
  }
}

// ---- matcher: the same patterns and ranking as `errdex match` ------------------------------------------

const MAX_LINE = 10000;      // characters of a line that are matched
const MAX_LINES = 50;        // lines matched per paste
const BUDGET_MS = 1000;      // the matcher stops here and says so (patterns that backtrack badly are refused at build)
let patterns = null;

async function loadPatterns() {
  if (!patterns) {
    const data = await fetchJson("api/patterns.json");
    if (!data) throw new Error("api/patterns.json is missing");
    patterns = { fields: data.fields, entries: [] };
    for (const entry of data.patterns) {
      try {
        patterns.entries.push({ ...entry, regex: new RegExp(entry.source, entry.flags) });
      } catch (error) {
        // a pattern this browser cannot compile is left out rather than breaking the others
      }
    }
  }
  return patterns;
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

// Every record whose pattern occurs in the line (or in its JSON message fields), best first.
function matchLine(line, data, deadline) {
  const texts = [line, ...jsonFields(line, data.fields)];
  const found = [];
  for (const entry of data.entries) {  // already in rank order: literal characters, variable parts, id
    if (performance.now() > deadline) return { found, stopped: true };
    for (const text of texts) {
      const hit = entry.regex.exec(text);
      if (hit) {
        found.push({ entry, groups: hit.slice(1) });
        break;
      }
    }
  }
  return { found, stopped: false };
}

function substitute(text, groups) {
  return text.replace(/\$([1-9])|\{([1-9])\}/g, (whole, a, b) => {
    const value = groups[Number(a || b) - 1];
    return value === undefined || value === null ? whole : value;
  });
}

function showMatch(line, number, result) {
  const box = element("div", null, "match-result");
  box.append(element("p", `Line ${number}: ${line.length > 300 ? line.slice(0, 297) + "…" : line}`, "muted"));
  if (!result.found.length) {
    box.append(element("p", result.stopped ? "Stopped: the matcher ran out of time for this line." : "No record matches this line."));
    return box;
  }
  const best = result.found[0];
  const heading = element("h3");
  const link = element("a", best.entry.errorClass + " (" + best.entry.severity + "): " + best.entry.slug);
  link.href = new URL(best.entry.url, new URL(root, location.href)).href;
  heading.append(link);
  box.append(heading, element("p", best.entry.meaning));
  const fix = element("p");
  fix.append(element("strong", "Fix: "), document.createTextNode(substitute(best.entry.fix, best.groups)));
  box.append(fix);
  if (best.groups.some((g) => g !== undefined)) {
    box.append(element("p", "Captured: " + best.groups.map((g) => (g === undefined ? "-" : g)).join(", "), "captured"));
  }
  if (result.found.length > 1) {
    box.append(element("p", `${result.found.length - 1} other record${result.found.length > 2 ? "s" : ""} also match: ` +
      result.found.slice(1, 6).map((f) => f.entry.slug).join(", "), "muted"));
  }
  if (result.stopped) box.append(element("p", "The matcher ran out of time; later records were not tried.", "muted"));
  return box;
}

function setUpMatcher() {
  const form = document.getElementById("matcher");
  if (!form) return;
  form.hidden = false;
  const input = document.getElementById("matcher-input");
  const output = document.getElementById("matcher-output");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    output.replaceChildren(element("p", "Matching…", "muted"));
    try {
      const data = await loadPatterns();
      const lines = input.value.split(/\r?\n/).map((l) => l.slice(0, MAX_LINE)).filter((l) => l.trim());
      const deadline = performance.now() + BUDGET_MS;
      const boxes = lines.slice(0, MAX_LINES).map((line, i) => showMatch(line, i + 1, matchLine(line, data, deadline)));
      if (lines.length > MAX_LINES) boxes.push(element("p", `Only the first ${MAX_LINES} lines were matched.`, "muted"));
      output.replaceChildren(...(boxes.length ? boxes : [element("p", "Paste a log line first.")]));
    } catch (error) {
      output.replaceChildren(element("p", `The matcher is unavailable: ${error.message}`));
    }
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

setUpSearch();
setUpMatcher();
setUpCopyButtons();
setUpQualityFilter();
