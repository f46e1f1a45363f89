package components

// Problem is an error as the console shows it: a sentence for the
// operator and, when the error has one, its machine code (an assembler
// error code such as missing_variable), shown small beside it so that
// support can search for it.
type Problem struct {
	Text string
	Code string
}

// Plain is the problem as one line of plain text, for a flash message:
// the sentence with the code in brackets.
func (p Problem) Plain() string {
	if p.Code == "" {
		return p.Text
	}
	return p.Text + " [" + p.Code + "]"
}
