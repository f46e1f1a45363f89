package webhook

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// PrivateNetworksFlag is the serve flag that lets webhooks reach
// private, loopback and link-local addresses (Policy.PrivateNetworks).
const PrivateNetworksFlag = "--webhook-private-networks"

// sharedAddressSpace is 100.64.0.0/10, carrier-grade NAT's: not on the
// public Internet either.
var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

// blockedAddress says why a webhook may not connect to ip, "" when it
// may: an admin's URL must not turn the server into a way into the
// network it runs in (the database, a cloud's metadata service, other
// internal services), whose answers the delivery log would show.
func blockedAddress(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return "a loopback address"
	case ip.IsUnspecified():
		return "the unspecified address"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "a link-local address (where cloud metadata services answer)"
	case ip.IsPrivate(), sharedAddressSpace.Contains(ip):
		return "a private-network address"
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return "a multicast address"
	}
	return ""
}

// hostProblem says why a URL's host (a name or an address literal) is
// refused when the endpoint is saved, "" when it is not: an address
// blockedAddress refuses, or localhost. A name that resolves to such an
// address is refused when a delivery connects (dialControl).
func hostProblem(host string) string {
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		if why := blockedAddress(ip); why != "" {
			return fmt.Sprintf("%s is %s; webhooks go to the public network unless the server runs with %s", host, why, PrivateNetworksFlag)
		}
		return ""
	}
	if h := strings.TrimSuffix(strings.ToLower(host), "."); h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return fmt.Sprintf("%s is this machine; webhooks go to the public network unless the server runs with %s", host, PrivateNetworksFlag)
	}
	if numericHost(host) {
		return fmt.Sprintf("%s reads as an IPv4 address in a shorthand (a single number, hex or octal parts) that resolvers read differently: write the address as four decimal numbers", host)
	}
	return ""
}

// numericHost reports whether host is made of numbers only (decimal,
// 0x hex) without being an address netip reads: 2130706433 or 0x7f.1,
// which some resolvers take for 127.0.0.1.
func numericHost(host string) bool {
	for _, label := range strings.Split(strings.TrimSuffix(strings.ToLower(host), "."), ".") {
		digits := strings.TrimPrefix(label, "0x")
		if digits == "" || strings.Trim(digits, "0123456789abcdef") != "" || digits == label && strings.Trim(label, "0123456789") != "" {
			return false
		}
	}
	return true
}

// dialControl refuses a connection to an address blockedAddress refuses,
// after the name was resolved: a name that resolves (or is made to
// resolve) to an internal address is caught here.
func dialControl(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("webhook receiver %s: not an IP address", address)
	}
	if why := blockedAddress(ip); why != "" {
		return &refusedReceiver{fmt.Sprintf("webhook receiver refused: %s is %s (allowed with %s)", host, why, PrivateNetworksFlag)}
	}
	return nil
}

// refusedReceiver is dialControl's refusal. Trying again connects to the
// same address, so the delivery fails at once rather than after every
// attempt; it can be sent again once the URL is fixed.
type refusedReceiver struct{ msg string }

func (e *refusedReceiver) Error() string { return e.msg }

// newClient is the HTTP client of deliveries: each attempt within
// timeout, redirects not followed, and unless privateNetworks, no
// connection to an address blockedAddress refuses and no proxy from the
// environment (the proxy would connect for it).
func newClient(timeout time.Duration, privateNetworks bool) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if !privateNetworks {
		dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: dialControl}
		tr.DialContext = dialer.DialContext
		tr.Proxy = nil
	}
	return &http.Client{
		Timeout:   timeout,
		Transport: tr,
		// A redirect is an answer that is not 2xx: the endpoint's URL is
		// the admin's to fix.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
