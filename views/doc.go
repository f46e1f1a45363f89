// Package views holds the console's templ components: layout/ for the
// page frame, components/ for shared pieces, and one package per page.
// Views take small view-model structs shaped like the page; they hold no
// business logic and display every text through templ's escaping.
package views
