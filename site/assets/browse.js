// errdex site: the browse page's filters (severity, class, repository, status, draft, words of the message), in the
// page, over api/browse.json (one short row per record; see errdex.site.browse). Without this script the page and
// its page links list every record. Record text is only ever set with textContent.
"use strict";

(function () {
  const form = document.getElementById("browse-filter");
  if (!form) return;
  const root = document.body.dataset.root || "./";
  const base = new URL(root, location.href);
  const list = document.getElementById("browse-list");
  const count = document.getElementById("browse-count");
  const fields = ["q", "severity", "class", "repo", "status", "draft"];
  let data = null;
  let shown = 0;

  function control(name) {
    return form.querySelector(`[name="${name}"]`);
  }

  function plural(n, word) {
    return `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;
  }

  function wanted() {
    const values = {};
    for (const name of fields) values[name] = control(name).value.trim();
    return values;
  }

  function matches(row, values, words) {
    const [message, , severity, errorClass, repo, status, draft] = row;
    if (values.severity && data.severities[severity] !== values.severity) return false;
    if (values.class && data.classes[errorClass] !== values.class) return false;
    if (values.repo && data.repositories[repo] !== values.repo) return false;
    if (values.status && data.statuses[status] !== values.status) return false;
    if (values.draft === "yes" && !draft) return false;
    if (values.draft === "no" && draft) return false;
    const text = message.toLowerCase();
    return words.every((w) => text.includes(w));
  }

  function item(row) {
    const [message, page, severity, errorClass, repo, status, draft] = row;
    const li = document.createElement("li");
    const link = document.createElement("a");
    link.href = new URL(`records/${data.repositoryPaths[repo]}/${page}.html`, base).href;
    link.textContent = message;
    const meta = document.createElement("span");
    meta.className = "meta";
    const sev = document.createElement("span");
    sev.className = `sev sev-${data.severities[severity]}`;
    sev.textContent = data.severities[severity];
    const state = draft ? " · draft" : data.statuses[status] !== "active" ? ` · ${data.statuses[status]}` : "";
    meta.append(sev, ` ${data.classes[errorClass]} · ${data.repositories[repo]}${state}`);
    li.append(link, " ", meta);
    return li;
  }

  function render(more) {
    const values = wanted();
    const words = values.q.toLowerCase().split(/\s+/).filter(Boolean);
    const found = data.records.filter((row) => matches(row, values, words));
    shown = more ? Math.min(found.length, shown + data.pageSize) : Math.min(found.length, data.pageSize);
    const ul = document.createElement("ul");
    ul.className = "records filtered";
    ul.append(...found.slice(0, shown).map(item));
    const parts = [ul];
    if (shown < found.length) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "more";
      button.textContent = `Show ${Math.min(data.pageSize, found.length - shown).toLocaleString("en-US")} more`;
      button.addEventListener("click", () => render(true));
      parts.push(button);
    }
    list.replaceChildren(...parts);
    count.textContent = `${plural(found.length, "record")} of ${data.records.length.toLocaleString("en-US")} match` +
      (shown < found.length ? `; the first ${shown.toLocaleString("en-US")} shown` : "");
    const query = new URLSearchParams();
    for (const name of fields) if (values[name]) query.set(name, values[name]);
    const search = query.toString();
    history.replaceState(null, "", search ? `?${search}` : location.pathname);
  }

  fetch(new URL("api/browse.json", base))
    .then((answer) => (answer.ok ? answer.json() : Promise.reject(new Error("api/browse.json is missing"))))
    .then((loaded) => {
      data = loaded;
      const asked = new URLSearchParams(location.search);
      for (const name of fields) if (asked.get(name)) control(name).value = asked.get(name);
      form.hidden = false;
      form.addEventListener("input", () => render(false));
      if (fields.some((name) => asked.get(name))) render(false);
    })
    .catch(() => { /* the page lists every record without the filters */ });
})();
