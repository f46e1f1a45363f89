// The console's only script besides htmx (no inline script: the CSP
// forbids it). It sends the CSRF token of the layout's csrf-token meta tag
// with every htmx request, as the X-CSRF-Token header.
document.addEventListener("htmx:configRequest", function (evt) {
  var meta = document.querySelector('meta[name="csrf-token"]');
  if (meta && meta.content) {
    evt.detail.headers["X-CSRF-Token"] = meta.content;
  }
});

// Preview and scenarios. Choosing a saved scenario loads its request JSON
// into the textarea at once (without script the select still works: the
// server loads it on Assemble); the select keeps naming it, and the
// hidden "loaded" field says whose text the textarea holds. Editing that
// text turns the select back to "Pasted JSON below", so that what runs is
// the text shown. After Assemble the result gets the focus, which brings
// it into view. The copy buttons put the full text, or the chat-messages
// JSON, on the clipboard; they stay hidden without script.
(function () {
  function showCopyButtons(root) {
    root.querySelectorAll("button[data-copy][hidden]").forEach(function (b) {
      b.hidden = false;
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    showCopyButtons(document);
  });
  document.addEventListener("htmx:afterSettle", function (evt) {
    showCopyButtons(evt.target);
  });

  document.addEventListener("change", function (evt) {
    var select = evt.target;
    if (!select.matches || !select.matches("select[data-scenario-select]") || !select.value) {
      return;
    }
    var form = select.form;
    var textarea = form && form.querySelector('textarea[name="request"]');
    var note = form && form.querySelector("[data-scenario-loaded]");
    var loaded = form && form.querySelector("[data-scenario-loaded-id]");
    if (!textarea) {
      return;
    }
    var id = select.value;
    var name = select.options[select.selectedIndex].text.trim();
    fetch("/scenarios/" + encodeURIComponent(id) + "/request", {
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    })
      .then(function (resp) {
        if (!resp.ok) {
          throw new Error("HTTP " + resp.status);
        }
        return resp.text();
      })
      .then(function (json) {
        textarea.value = json;
        if (loaded) {
          loaded.value = id;
        }
        if (note) {
          note.textContent = "Loaded " + name + " (" + id + ") below: press Assemble, or edit it first.";
        }
      })
      .catch(function (err) {
        if (note) {
          note.textContent = "Could not load the scenario (" + err.message + "); Assemble runs it all the same.";
        }
      });
  });

  document.addEventListener("input", function (evt) {
    var textarea = evt.target;
    var form = textarea.form;
    if (!form || textarea.name !== "request") {
      return;
    }
    var select = form.querySelector("select[data-scenario-select]");
    var loaded = form.querySelector("[data-scenario-loaded-id]");
    var note = form.querySelector("[data-scenario-loaded]");
    if (select && select.value && loaded && loaded.value === select.value) {
      select.value = "";
      loaded.value = "";
      if (note) {
        note.textContent = "Edited: Assemble runs the text below.";
      }
    }
  });

  document.addEventListener("htmx:afterSettle", function (evt) {
    if (!evt.target || evt.target.id !== "preview") {
      return;
    }
    var first = evt.target.querySelector("#preview-result-heading, .alert");
    if (first) {
      if (!first.hasAttribute("tabindex")) {
        first.tabIndex = -1;
      }
      first.focus();
    }
  });

  function copied(button, ok) {
    var status = button.parentNode.querySelector("[data-copy-status]");
    if (status) {
      status.textContent = ok ? "Copied " + button.textContent.replace(/^Copy /, "") + "." : "Copying failed: select the text and copy it by hand.";
    }
  }

  document.addEventListener("click", function (evt) {
    var button = evt.target.closest && evt.target.closest("button[data-copy]");
    if (!button) {
      return;
    }
    var source = document.getElementById(button.getAttribute("data-copy"));
    if (!source) {
      return;
    }
    var text = source.tagName === "TEXTAREA" ? source.value : source.textContent;
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(
        function () { copied(button, true); },
        function () { copied(button, fallbackCopy(text)); }
      );
    } else {
      copied(button, fallbackCopy(text));
    }
  });

  // fallbackCopy copies through a temporary textarea where the
  // clipboard API is missing (a console reached over plain HTTP).
  function fallbackCopy(text) {
    var ta = document.createElement("textarea");
    ta.value = text;
    ta.setAttribute("readonly", "");
    ta.style.position = "fixed";
    ta.style.opacity = "0";
    document.body.appendChild(ta);
    ta.select();
    var ok = false;
    try {
      ok = document.execCommand("copy");
    } catch (e) {
      ok = false;
    }
    document.body.removeChild(ta);
    return ok;
  }
})();

// Library. Back and Forward put back the list from htmx's history, but
// its snapshot keeps the filter fields as last typed or chosen, not as
// the list was filtered: they are set again from the address, so that
// what they say is what the list shows.
document.addEventListener("htmx:historyRestore", function () {
  var form = document.querySelector('[data-testid="library-filters"]');
  if (!form) {
    return;
  }
  var query = new URLSearchParams(location.search);
  ["q", "layer", "locale", "status"].forEach(function (name) {
    var field = form.elements[name];
    if (field) {
      field.value = query.get(name) || "";
    }
  });
});

// Scroll boxes: long text, diffs and wide tables scroll inside their box,
// so a keyboard must be able to reach them. A box that overflows gets
// tabindex="0" (arrows then scroll it); a box that fits stays out of the
// tab order. The override editor's scroller is reached through its
// editable content, which is made a tab stop. Run on load, after htmx
// swaps, when a <details> opens and when the window is resized.
(function () {
  var boxes = "pre, .diff, .numbered, .table-wrap";
  function reachable(root) {
    var scope = root && root.querySelectorAll ? root : document;
    scope.querySelectorAll('.cm-content[contenteditable="true"]:not([tabindex])').forEach(function (el) {
      el.tabIndex = 0;
    });
    scope.querySelectorAll(boxes).forEach(function (el) {
      var overflows = el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1;
      if (overflows && !el.hasAttribute("tabindex")) {
        el.tabIndex = 0;
        el.setAttribute("data-scroll-focus", "");
      } else if (!overflows && el.hasAttribute("data-scroll-focus")) {
        el.removeAttribute("tabindex");
        el.removeAttribute("data-scroll-focus");
      }
    });
  }
  document.addEventListener("DOMContentLoaded", function () { reachable(document); });
  window.addEventListener("load", function () { reachable(document); });
  document.addEventListener("htmx:afterSettle", function (evt) { reachable(evt.target); });
  document.addEventListener("toggle", function (evt) { reachable(evt.target); }, true);
  var timer = 0;
  window.addEventListener("resize", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { reachable(document); }, 150);
  });
})();
