package client

import (
	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
)

// fallbackLibrary is the fallback's library: Options.Library, else the
// embedded builtin library, loaded once.
func (c *Client) fallbackLibrary() (*library.Snapshot, error) {
	c.fallbackOnce.Do(func() {
		if c.opt.Library != nil {
			c.fallbackLib = c.opt.Library
			return
		}
		c.fallbackLib, c.fallbackErr = library.Builtin()
	})
	return c.fallbackLib, c.fallbackErr
}

// fallbackLocale is the locale a GET route serves for the locale asked
// ("" is the fallback locale), in its canonical form as the server
// reads it.
func (c *Client) fallbackLocale(locale string) string {
	if locale == "" {
		return c.opt.Assembler.FallbackLocale()
	}
	if l, err := library.CanonicalLocale(locale); err == nil {
		return l
	}
	return locale
}

// fallbackAssemble assembles req from the fallback library with no
// overrides and no profile (profiles are stored on the server). Errors:
// the request's faults as the assembler's *library.Error.
func (c *Client) fallbackAssemble(req *assembler.Request) (any, error) {
	snap, err := c.fallbackLibrary()
	if err != nil {
		return nil, err
	}
	r := *req
	r.Profile = ""
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return c.opt.Assembler.Assemble(snap, nil, &r, c.now())
}

// fallbackRender renders req from the fallback library with no
// overrides. Errors as fallbackAssemble.
func (c *Client) fallbackRender(req *assembler.RenderRequest) (any, error) {
	snap, err := c.fallbackLibrary()
	if err != nil {
		return nil, err
	}
	return c.opt.Assembler.Render(snap, nil, req, c.now())
}
