(function () {
  "use strict";
  // Rows come from the JSON element; every provider string reaches the page through
  // textContent or setAttribute, never as markup. A link gets an href only for http(s).
  var PAGE_SIZE = 50;
  var rows = JSON.parse(document.getElementById("report-data").textContent).rows;
  var state = { vendor: "", status: "", search: "", page: 0 };
  var haystacks = null;
  var shown = rows;

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function httpUrl(url) {
    if (typeof url !== "string" || url.length === 0) return null;
    var parsed;
    try {
      parsed = new URL(url);
    } catch (error) {
      return null;
    }
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? url : null;
  }

  function sourceLink(source, text) {
    var href = httpUrl(source.href);
    if (!href) return el("span", "source-title", text);
    var link = el("a", "source-title", text);
    link.setAttribute("href", href);
    link.setAttribute("rel", "noopener noreferrer nofollow");
    link.setAttribute("target", "_blank");
    return link;
  }

  function percent(value) {
    return value === null || value === undefined ? "n/a" : Math.round(value * 100) + "%";
  }

  function verdictBadge(verdict) {
    return el("span", "badge verdict-" + verdict, verdict);
  }

  function renderAnswer(row) {
    var answer = el("div", "answer");
    row.segments.forEach(function (segment) {
      if (segment.a.length) {
        var mark = el("mark", "attr", segment.t);
        mark.setAttribute("tabindex", "0");
        mark.setAttribute("data-attributions", segment.a.join(" "));
        mark.setAttribute("data-start", segment.s);
        mark.setAttribute("data-end", segment.e);
        mark.setAttribute("title", segment.a.map(function (index) {
          var attribution = row.attributions[index];
          var source = row.sources[attribution.c];
          return "[" + (attribution.c + 1) + "] " + source.domain + ": " + source.title +
            (attribution.v ? " (" + attribution.v + ")" : "");
        }).join("\n"));
        answer.appendChild(mark);
      } else {
        answer.appendChild(document.createTextNode(segment.t));
      }
      segment.m.forEach(function (number) {
        answer.appendChild(el("sup", "marker", "[" + number + "]"));
      });
    });
    return answer;
  }

  function renderDetail(row, detail, indices) {
    detail.textContent = "";
    indices.forEach(function (index) {
      var attribution = row.attributions[index];
      var source = row.sources[attribution.c];
      var item = el("div", "detail-item");
      item.setAttribute("data-attribution", index);
      item.appendChild(el("strong", "", "[" + (attribution.c + 1) + "] "));
      item.appendChild(sourceLink(source, source.title || source.url || "(no title)"));
      item.appendChild(el("span", "muted", " · " + source.domain + " "));
      if (attribution.v) item.appendChild(verdictBadge(attribution.v));
      if (attribution.f !== null && attribution.f !== undefined) {
        item.appendChild(el("span", "muted", " confidence " + attribution.f.toFixed(2)));
      }
      var passage = attribution.q || source.q;
      item.appendChild(passage ? el("blockquote", "passage", passage) :
        el("div", "muted", "no passage given for this citation"));
      detail.appendChild(item);
    });
    detail.hidden = indices.length === 0;
  }

  function renderSources(row) {
    var list = el("ol", "sources");
    row.sources.forEach(function (source, index) {
      var item = el("li", "source");
      item.setAttribute("data-source", index + 1);
      item.appendChild(sourceLink(source, source.title || "(no title)"));
      item.appendChild(el("div", "url", source.url || "(no URL)"));
      var facts = el("div", "facts");
      facts.appendChild(el("span", "domain", source.domain));
      facts.appendChild(document.createTextNode(" "));
      facts.appendChild(el("span", "badge", source.cited ? "cited" : "searched only"));
      if (source.redirect) facts.appendChild(el("span", "badge redirect", "redirect"));
      if (source.type) facts.appendChild(el("span", "muted", " " + source.type));
      item.appendChild(facts);
      if (source.q) item.appendChild(el("blockquote", "passage", source.q));
      list.appendChild(item);
    });
    return list;
  }

  function renderVerification(verification) {
    var line = el("p", "verification");
    line.appendChild(el("strong", "", "verification: "));
    line.appendChild(document.createTextNode(
      "coverage " + percent(verification.coverage) + " · support rate " +
      percent(verification.support_rate) + " · "));
    Object.keys(verification.counts).forEach(function (verdict) {
      line.appendChild(verdictBadge(verdict + " " + verification.counts[verdict]));
      line.appendChild(document.createTextNode(" "));
    });
    if (verification.scorer) line.appendChild(el("span", "muted", "scorer " + verification.scorer));
    verification.violations.forEach(function (violation) {
      line.appendChild(el("div", "error", "violated: " + violation));
    });
    return line;
  }

  function renderRow(row) {
    var article = el("article", "row");
    article.setAttribute("data-vendor", row.vendor);
    article.setAttribute("data-status", row.ok ? "ok" : "failed");
    var header = el("header");
    header.appendChild(el("span", "row-id", row.id || "(no id)"));
    header.appendChild(el("span", "badge", row.vendor));
    if (row.model) header.appendChild(el("span", "muted", row.model));
    header.appendChild(el("span", "badge status-" + (row.ok ? "ok" : "failed"), row.ok ? "answered" : "failed"));
    if (row.line !== null && row.line !== undefined) header.appendChild(el("span", "muted", "line " + row.line));
    article.appendChild(header);
    if (!row.ok) {
      var error = row.error;
      article.appendChild(el("p", "error",
        error.type + (error.reason ? " (" + error.reason + ")" : "") +
        (error.status ? " status " + error.status : "") + ": " + error.message));
      return article;
    }
    var facts = "grounded: " + row.grounded + " · citations: " + row.sources.length +
      " · coverage " + percent(row.coverage);
    if (row.cost) facts += " · cost " + row.cost.total.toFixed(4) + " " + row.cost.currency;
    article.appendChild(el("div", "muted", facts));
    if (row.queries.length) article.appendChild(el("div", "muted", "searched: " + row.queries.join("; ")));
    article.appendChild(renderAnswer(row));
    var detail = el("div", "detail");
    detail.hidden = true;
    article.appendChild(detail);
    if (row.verification) article.appendChild(renderVerification(row.verification));
    article.appendChild(renderSources(row));
    article.addEventListener("click", function (event) {
      var mark = event.target.closest("mark.attr");
      if (mark) select(row, article, detail, mark);
    });
    article.addEventListener("keydown", function (event) {
      var mark = event.target.closest("mark.attr");
      if (mark && (event.key === "Enter" || event.key === " ")) {
        event.preventDefault();
        select(row, article, detail, mark);
      }
    });
    return article;
  }

  function select(row, article, detail, mark) {
    var already = mark.classList.contains("active");
    article.querySelectorAll("mark.attr.active, li.source.active").forEach(function (node) {
      node.classList.remove("active");
    });
    if (already) {
      renderDetail(row, detail, []);
      return;
    }
    mark.classList.add("active");
    var indices = mark.getAttribute("data-attributions").split(" ").map(Number);
    indices.forEach(function (index) {
      var source = article.querySelector('li.source[data-source="' + (row.attributions[index].c + 1) + '"]');
      if (source) source.classList.add("active");
    });
    renderDetail(row, detail, indices);
  }

  function haystack(row) {
    var parts = [row.id, row.vendor, row.model];
    if (row.ok) {
      row.segments.forEach(function (segment) { parts.push(segment.t); });
      row.sources.forEach(function (source) { parts.push(source.title, source.domain, source.url); });
    } else {
      parts.push(row.error.type, row.error.reason || "", row.error.message);
    }
    return parts.join("\n").toLowerCase();
  }

  function matches(row, index) {
    if (state.vendor && row.vendor !== state.vendor) return false;
    if (state.status && (row.ok ? "ok" : "failed") !== state.status) return false;
    if (state.search) {
      if (haystacks === null) haystacks = rows.map(haystack);
      return haystacks[index].indexOf(state.search) !== -1;
    }
    return true;
  }

  function render() {
    shown = rows.filter(matches);
    var pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE));
    state.page = Math.min(state.page, pages - 1);
    var first = state.page * PAGE_SIZE;
    var container = document.getElementById("rows");
    var fragment = document.createDocumentFragment();
    shown.slice(first, first + PAGE_SIZE).forEach(function (row) {
      fragment.appendChild(renderRow(row));
    });
    container.textContent = "";
    container.appendChild(fragment);
    document.getElementById("shown").textContent = shown.length === 0 ? "no rows match" :
      "rows " + (first + 1) + "–" + Math.min(first + PAGE_SIZE, shown.length) + " of " +
      shown.length + (shown.length === rows.length ? "" : " (" + rows.length + " in all)");
    document.getElementById("page-label").textContent = "page " + (state.page + 1) + " of " + pages;
    document.getElementById("page-prev").disabled = state.page === 0;
    document.getElementById("page-next").disabled = state.page >= pages - 1;
    if (document.body.getAttribute("data-ready") !== "true") {
      // When the page first became usable: the bench reads this mark.
      performance.mark("report-ready");
      document.body.setAttribute("data-ready", "true");
    }
  }

  function onFilter(name, value) {
    state[name] = value;
    state.page = 0;
    render();
  }

  document.getElementById("filter-vendor").addEventListener("change", function (event) {
    onFilter("vendor", event.target.value);
  });
  document.getElementById("filter-status").addEventListener("change", function (event) {
    onFilter("status", event.target.value);
  });
  document.getElementById("filter-search").addEventListener("input", function (event) {
    onFilter("search", event.target.value.trim().toLowerCase());
  });
  document.getElementById("page-prev").addEventListener("click", function () {
    state.page -= 1;
    render();
    window.scrollTo(0, 0);
  });
  document.getElementById("page-next").addEventListener("click", function () {
    state.page += 1;
    render();
    window.scrollTo(0, 0);
  });
  render();
})();
