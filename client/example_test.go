package client_test

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"os"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/client"
)

// A runtime follows the change feed in the background and asks for its
// system prompt at each user message: from the cache while nothing
// changed, from promptdesk after a publish, from the embedded library
// when promptdesk cannot be reached (a.Origin.Source says which).
func Example() {
	ctx := context.Background()
	pd := client.New("http://127.0.0.1:8080", os.Getenv("PROMPTDESK_TOKEN"), client.Options{})
	go pd.Follow(ctx)                                  // the change feed keeps the cache current
	for in := bufio.NewScanner(os.Stdin); in.Scan(); { // one user message a line
		a, err := pd.Assemble(ctx, &assembler.Request{Locale: "en-US", Message: in.Text(), Model: "gpt-4o"})
		if err != nil {
			log.Fatal(err) // a *client.Error: the request is wrong, and says which field
		}
		fmt.Printf("[%s, %d tokens]\n%s\n", a.Origin.Source, a.Tokens, a.Text) // the system message for the model
	}
}
