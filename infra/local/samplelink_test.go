package main

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var linkLine = regexp.MustCompile(`sample payment link \(25\.00 USD\): (http://\S+/pay/[0-9a-f-]{36})`)

// TestBannerPrintsASamplePaymentLink: make run's banner ends with a payment
// link of the sandbox account whose page is served and pays; a restart at
// the same address reuses it while it is active.
func TestBannerPrintsASamplePaymentLink(t *testing.T) {
	dir := t.TempDir()
	g := start(t, dir, nil, nil)
	m := linkLine.FindStringSubmatch(g.out.String())
	require.NotNil(t, m, "no sample link in the banner:\n%s", g.out.String())
	require.True(t, strings.HasPrefix(m[1], "http://"+g.addr+"/pay/"), m[1])
	res, err := http.Get(m[1])
	require.NoError(t, err)
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	assert.Contains(t, string(page), "25.00\u00a0USD")
	assert.Contains(t, string(page), "dropin.js", "an active link: the Drop-in")
	id := m[1][strings.LastIndex(m[1], "/")+1:]
	res, err = http.Post("http://"+g.addr+"/pay/"+id+"/session", "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, 200, res.StatusCode, "the page opens its session")
	g.stop()

	again := start(t, dir, nil, nil)
	m2 := linkLine.FindStringSubmatch(again.out.String())
	require.NotNil(t, m2)
	if again.addr == g.addr {
		assert.Equal(t, m[1], m2[1], "the same link while it is active at this address")
	} else {
		assert.True(t, strings.HasPrefix(m2[1], "http://"+again.addr+"/pay/"), "a link at the new address")
	}
}
