// Baton dashboard: the overview's queue table refreshes itself, and forms that ask for a
// confirmation do so before they are sent. Everything else works without JavaScript.
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

  var queues = document.getElementById("queues");
  if (!queues) {
    return;
  }
  var url = queues.getAttribute("data-refresh");
  // The fragment is HTML rendered and escaped by the server, like the page it replaces.
  function refresh() {
    fetch(url, { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) { if (html !== null) { queues.innerHTML = html; } })
      .catch(function () {})
      .finally(function () { window.setTimeout(refresh, 5000); });
  }
  window.setTimeout(refresh, 5000);
})();
