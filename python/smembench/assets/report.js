
(function () {
  "use strict";
  var errors = [];
  window.addEventListener("error", function (e) { errors.push(String(e.message)); });
  function value(td, num) {
    var v = td.hasAttribute("data-v") ? td.getAttribute("data-v") : td.textContent.trim();
    if (!num) return v === "" ? null : v.toLowerCase();
    v = v.replace(/,/g, "");
    return v === "" || isNaN(parseFloat(v)) ? null : parseFloat(v);
  }
  function sortTable(table, col, dir) {
    var th = table.tHead.rows[0].cells[col], num = th.getAttribute("data-type") === "num";
    var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
    rows.forEach(function (r, i) { r.dataset.pos = r.dataset.pos || String(i); });
    rows.sort(function (a, b) {
      var x = value(a.cells[col], num), y = value(b.cells[col], num);
      var pa = +a.dataset.pos, pb = +b.dataset.pos;
      if (x === null || y === null) return (x === null) - (y === null) || pa - pb;
      var c = x < y ? -1 : x > y ? 1 : 0;
      return (dir === "ascending" ? c : -c) || pa - pb;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir);
  }
  function clicked(e) {
    var th = e.target.closest("th");
    if (!th) return;
    var table = th.closest("table");
    sortTable(table, th.cellIndex, th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending");
  }
  var tables = document.querySelectorAll("table.sortable");
  Array.prototype.forEach.call(tables, function (t) {
    t.tHead.addEventListener("click", clicked);
    t.tHead.addEventListener("keydown", function (e) { if (e.key === "Enter") clicked(e); });
    Array.prototype.forEach.call(t.tHead.rows[0].cells, function (h) { h.tabIndex = 0; });
  });
  function filter(input) {
    var table = document.getElementById(input.getAttribute("data-table"));
    var words = input.value.toLowerCase().split(/\s+/).filter(Boolean), shown = 0;
    Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
      var text = r.textContent.toLowerCase();
      var keep = words.every(function (w) { return text.indexOf(w) >= 0; });
      r.hidden = !keep;
      shown += keep;
    });
    var count = document.querySelector('output[data-table="' + table.id + '"]');
    if (count) count.textContent = shown + " of " + table.tBodies[0].rows.length + " rows";
    return shown;
  }
  function csv(table) {
    function field(td) {
      var v = td.hasAttribute("data-v") && td.getAttribute("data-v") !== "" ? td.getAttribute("data-v")
        : td.textContent.trim().replace(/^\u2013$/, "");
      return /[",\n]/.test(v) ? '"' + v.replace(/"/g, '""') + '"' : v;
    }
    var lines = [Array.prototype.map.call(table.tHead.rows[0].cells, function (th) {
      return field({ hasAttribute: function () { return false; }, textContent: th.textContent });
    }).join(",")];
    Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
      if (!r.hidden) lines.push(Array.prototype.map.call(r.cells, field).join(","));
    });
    return lines.join("\n") + "\n";
  }
  Array.prototype.forEach.call(document.querySelectorAll("input.filter"), function (input) {
    input.addEventListener("input", function () { filter(input); });
    if (input.value) filter(input);
  });
  // the CSV link is the script's: without it the page has no file to give, and the link stays hidden
  Array.prototype.forEach.call(document.querySelectorAll("a.csv"), function (a) {
    a.href = "#" + a.getAttribute("data-table");
    a.hidden = false;
    a.addEventListener("click", function () {
      var blob = new Blob([csv(document.getElementById(a.getAttribute("data-table")))], { type: "text/csv" });
      if (a.href.indexOf("blob:") === 0) URL.revokeObjectURL(a.href);
      a.href = URL.createObjectURL(blob);
    });
  });
  function ordered(table, col, dir) {
    var num = table.tHead.rows[0].cells[col].getAttribute("data-type") === "num", seenEmpty = false, prev = null;
    for (var i = 0; i < table.tBodies[0].rows.length; i++) {
      var v = value(table.tBodies[0].rows[i].cells[col], num);
      if (v === null) { seenEmpty = true; continue; }
      if (seenEmpty) return false;
      if (prev !== null && (dir === "ascending" ? v < prev : v > prev)) return false;
      prev = v;
    }
    return true;
  }
  function selftest() {
    var checked = 0, failed = [], filtered = 0;
    Array.prototype.forEach.call(tables, function (t) {
      var n = t.tBodies[0].rows.length;
      Array.prototype.forEach.call(t.tHead.rows[0].cells, function (th, col) {
        ["ascending", "descending"].forEach(function (dir) {
          th.click();
          if (th.getAttribute("aria-sort") !== dir || !ordered(t, col, dir) || t.tBodies[0].rows.length !== n)
            failed.push((t.id || "table") + " column " + (col + 1) + " " + dir);
          checked++;
        });
      });
    });
    // each filter box: the first row's first cell as the filter keeps the rows holding it, and the
    // CSV then has a line per kept row; an empty box shows every row again
    Array.prototype.forEach.call(document.querySelectorAll("input.filter"), function (input) {
      var t = document.getElementById(input.getAttribute("data-table")), rows = t.tBodies[0].rows;
      if (!rows.length) return;
      var word = rows[0].cells[0].textContent.trim().toLowerCase(), want = 0;
      Array.prototype.forEach.call(rows, function (r) { want += r.textContent.toLowerCase().indexOf(word) >= 0; });
      input.value = word;
      var shown = filter(input), lines = csv(t).split("\n").length - 2;
      if (shown !== want || lines !== want) failed.push(t.id + " filter " + shown + "/" + lines + "/" + want);
      input.value = "";
      if (filter(input) !== rows.length) failed.push(t.id + " filter cleared");
      var link = document.querySelector('a.csv[data-table="' + t.id + '"]');
      if (!link || link.hidden || !link.getAttribute("href")) failed.push(t.id + " CSV link");
      filtered++;
    });
    var out = document.getElementById("selftest");
    var ok = !failed.length && !errors.length;
    out.setAttribute("data-result", ok ? "pass" : "fail");
    out.textContent = "selftest: " + (ok ? "pass" : "FAIL") + ", " + tables.length + " tables, " + checked +
      " sorts checked, " + filtered + " filters checked" +
      (failed.length ? "; out of order: " + failed.join(", ") : "") +
      (errors.length ? "; script errors: " + errors.join("; ") : "");
  }
  // a figure wider than its box (drawn where its smallest text is 10 px) scrolls sideways in it; a
  // button fits the whole of it to the box instead, and back
  Array.prototype.forEach.call(document.querySelectorAll("figure"), function (fig) {
    var cap = fig.querySelector("figcaption");
    if (!cap || fig.scrollWidth <= fig.clientWidth + 1) return;
    var b = document.createElement("button");
    b.type = "button";
    b.textContent = "whole figure";
    b.title = "fit the figure to the screen (its text then under 10 px); again for the readable size";
    b.addEventListener("click", function () {
      var fit = fig.classList.toggle("fit");
      b.textContent = fit ? "readable size" : "whole figure";
    });
    cap.appendChild(document.createTextNode(" (scroll sideways for the rest)"));
    cap.appendChild(b);
  });
  document.documentElement.setAttribute("data-scroll-width", String(document.documentElement.scrollWidth));
  if (location.hash === "#selftest") selftest();
})();
