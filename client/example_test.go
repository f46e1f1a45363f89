package client_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/client"
)

// A runtime follows the change feed in the background and asks for its
// system prompt each turn: from the cache while nothing changed, from
// promptdesk after a publish, from the embedded library when promptdesk
// cannot be reached.
func Example() {
	c := client.New("http://127.0.0.1:8080", os.Getenv("PROMPTDESK_TOKEN"), client.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go c.Follow(ctx)

	a, err := c.Assemble(ctx, &assembler.Request{Locale: "en-US", Message: "Please translate this note", Model: "gpt-4o"})
	if err != nil {
		log.Fatal(err) // the request is wrong: a *client.Error names the field
	}
	if a.Origin.Source == client.SourceFallback {
		log.Printf("promptdesk unreachable (%v): the builtin prompt serves", a.Origin.Err)
	}
	fmt.Println(a.Tokens, "tokens:", a.Text)
}
