// The console's only script besides htmx (no inline script: the CSP
// forbids it). It sends the CSRF token of the layout's csrf-token meta tag
// with every htmx request, as the X-CSRF-Token header.
document.addEventListener("htmx:configRequest", function (evt) {
  var meta = document.querySelector('meta[name="csrf-token"]');
  if (meta && meta.content) {
    evt.detail.headers["X-CSRF-Token"] = meta.content;
  }
});
