// Package authpage holds the account pages: login, first set-up from a
// setup link, the own-password form and the admins' users page.
package authpage

// Login is the login form.
type Login struct {
	Name  string
	Next  string
	Error string
}

// Setup is the page of a setup link.
type Setup struct {
	Action string
	// Name is the account's name when the link names it; "" lets the
	// user choose (first admin).
	Name string
	// Typed is the name typed into the form (no Name), kept after an
	// error.
	Typed string
	Role  string
	Error string
	Rule  PasswordRule
}

// Password is the change-own-password form.
type Password struct {
	Error string
	Done  bool
	Rule  PasswordRule
}

// PasswordRule is what a new password must be, shown beside its field:
// at least MinChars characters and at most MaxBytes bytes of UTF-8.
type PasswordRule struct {
	MinChars, MaxBytes int
}

// UserRow is one account on the users page.
type UserRow struct {
	Name     string
	Role     string
	Disabled bool
	Self     bool
}

// LinkRow is a pending setup link on the users page (never its secret).
// Created and Expires are UTC times as the page shows them.
type LinkRow struct {
	ID        int64
	Name      string // "" for the first admin's link
	Role      string
	CreatedBy string
	Created   string
	Expires   string
}

// Users is the admins' users page.
type Users struct {
	Users []UserRow
	Links []LinkRow
	Roles []string
	// Link is a setup link just created, shown once.
	Link     string
	LinkName string
	Error    string
	// AddError says why the add form was refused; it shows under the
	// name field.
	AddError string
	// Name and Role are the add form's values kept after an error.
	Name string
	Role string
	// Rule is the password the new user chooses on the setup page.
	Rule PasswordRule
}
