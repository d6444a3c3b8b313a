// Baton dashboard: parts of a page marked data-refresh swap themselves for a fresh copy every 5
// seconds (the overview always; lists and a job's page while "Live" is ticked), forms that ask for
// a confirmation do so before they are sent, and a checkbox selects every job of a page.
// Everything else works without JavaScript.
(function () {
  "use strict";

  document.addEventListener("submit", function (e) {
    var form = e.target;
    var question = form.getAttribute("data-confirm");
    if (question && !window.confirm(question)) {
      e.preventDefault();
      return;
    }
    // A second click while the first submission is on its way sends nothing more.
    if (form.getAttribute("data-sent")) {
      e.preventDefault();
      return;
    }
    form.setAttribute("data-sent", "1");
  });

  document.addEventListener("change", function (e) {
    if (e.target.id === "select-all") {
      document.querySelectorAll("input[name=ids]").forEach(function (box) {
        box.checked = e.target.checked;
      });
    }
  });

  // The overview's queues refresh always; a page's live part while its "Live" box is ticked and
  // nothing on it is selected (a refresh would drop the selection).
  function live(part, always) {
    var url = part.getAttribute("data-refresh");
    var toggle = document.getElementById("live");
    function due() {
      // Someone typing in a field of the part (a backlog cap) keeps what they typed.
      var typing = document.activeElement;
      if (typing && typing.tagName === "INPUT" && part.contains(typing)) {
        return false;
      }
      // So does someone with a queue's limits forms open.
      if (part.querySelector("details[open]")) {
        return false;
      }
      if (always) {
        return true;
      }
      return toggle && toggle.checked && !part.querySelector("input[name=ids]:checked");
    }
    // The fragment is HTML rendered and escaped by the server, like the page it replaces.
    function refresh() {
      if (!due()) {
        window.setTimeout(refresh, 5000);
        return;
      }
      fetch(url, { credentials: "same-origin", cache: "no-store" })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (html === null) {
            return;
          }
          if (always) {
            part.innerHTML = html;
            return;
          }
          var fresh = new DOMParser().parseFromString(html, "text/html").getElementById(part.id);
          if (fresh) {
            part.innerHTML = fresh.innerHTML;
          }
        })
        .catch(function () {})
        .finally(function () { window.setTimeout(refresh, 5000); });
    }
    window.setTimeout(refresh, 5000);
  }

  var queues = document.getElementById("queues");
  if (queues) {
    live(queues, true);
  }
  var part = document.getElementById("live-part");
  if (part) {
    live(part, false);
  }
})();
