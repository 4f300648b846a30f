package apitest

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
)

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Logs collects every log line of every Env in this test binary.
var Logs = &syncBuffer{}

var (
	secretsMu sync.Mutex
	secrets   []string
)

// RememberSecret records a key issued during the run, for NoSecretsLogged.
func RememberSecret(s string) {
	secretsMu.Lock()
	secrets = append(secrets, s)
	secretsMu.Unlock()
}

// NoSecretsLogged scans the whole run's logs for any issued key (or its
// random part alone) and returns an error naming how many leaked. Call it
// from TestMain after m.Run.
func NoSecretsLogged() error {
	secretsMu.Lock()
	defer secretsMu.Unlock()
	return scanKeys(Logs.String(), secrets)
}

func scanKeys(logs string, keys []string) error {
	if len(keys) == 0 {
		return fmt.Errorf("no keys were issued: the scan would prove nothing")
	}
	if logs == "" {
		return fmt.Errorf("no log output was captured: the scan would prove nothing")
	}
	leaked := 0
	for _, s := range keys {
		random := s[strings.LastIndex(s, "_")+1:]
		if strings.Contains(logs, s) || strings.Contains(logs, random) {
			leaked++
		}
	}
	if leaked > 0 {
		return fmt.Errorf("%d of %d keys appear in the logs", leaked, len(keys))
	}
	return nil
}

// NoCardDataLogged scans the whole run's logs for card numbers, CVCs and
// cryptograms (see FindCardData), and for every value a test handled in
// clear and remembered with RememberSensitive.
func NoCardDataLogged() error {
	logs := Logs.String()
	found := FindCardData(logs)
	sensitiveMu.Lock()
	for _, v := range sensitive {
		if strings.Contains(logs, v) {
			found = append(found, fmt.Sprintf("a remembered sensitive value (%d characters)", len(v)))
		}
	}
	sensitiveMu.Unlock()
	if len(found) > 0 {
		return fmt.Errorf("card data in the logs: %s", strings.Join(found, "; "))
	}
	return nil
}

var (
	sensitiveMu sync.Mutex
	sensitive   []string
)

// RememberSensitive records values a test handled in clear that no log may
// hold: a wallet token's cryptogram, a decrypted device account number, a
// whole encrypted card or wallet token. Values shorter than 8 characters
// are not kept (they would match by chance).
func RememberSensitive(values ...string) {
	sensitiveMu.Lock()
	defer sensitiveMu.Unlock()
	for _, v := range values {
		if len(v) >= 8 {
			sensitive = append(sensitive, v)
		}
	}
}

// cvcPattern is a CVC beside its name, as JSON, a query string or a log
// attribute writes it ("cvc":"737", cvv=123, "securityCode": "7373"), or any
// value of Adyen's encryptedSecurityCode (test_737 in the sandbox).
var cvcPattern = regexp.MustCompile(`(?i)"?\b(?:cvc|cvv2?|cvn|card_?verification(?:_?code|_?value)?|security_?code)"?\s*[:=]\s*"?[0-9]{3,4}\b` +
	`|"?encryptedSecurityCode"?\s*[:=]\s*"?[^"\s,}]`)

// cryptogramPattern is a wallet cryptogram beside its name (Apple Pay's
// onlinePaymentCryptogram, Google Pay's cryptogram, the platform's sealed
// token fields): base64 of 8 characters or more.
var cryptogramPattern = regexp.MustCompile(`(?i)"?\b(?:online_?payment_?)?cryptogram"?\s*[:=]\s*"?[A-Za-z0-9+/]{8,}`)

// digitRun is digits, maybe in groups split by one space or dash.
var digitRun = regexp.MustCompile(`[0-9]+(?:[ -][0-9]+)*`)

// FindCardData returns, masked, each card number (see cardNumbers), each
// CVC and each cryptogram beside its name that logs contain, with its line
// number.
func FindCardData(logs string) []string {
	var found []string
	for n, line := range strings.Split(logs, "\n") {
		for _, pan := range cardNumbers(line) {
			found = append(found, fmt.Sprintf("line %d: card number %s", n+1, maskPAN(pan)))
		}
		if cvcPattern.MatchString(line) {
			found = append(found, fmt.Sprintf("line %d: a CVC", n+1))
		}
		if cryptogramPattern.MatchString(line) {
			found = append(found, fmt.Sprintf("line %d: a cryptogram", n+1))
		}
	}
	return found
}

// cardNumbers finds card numbers in line: 13-19 digits starting with 2-6 (as
// the networks' numbers do; a Unix time in nanoseconds starts with 1) that
// pass Luhn, written whole or in the groups cards print them in
// (4111 1111 1111 1111, 3700 0000 0000 002, 3782 822463 10005). A run of
// digits that touches a letter or a dash is part of a UUID, a hash or an id,
// and is not looked into.
func cardNumbers(line string) []string {
	var found []string
	for _, loc := range digitRun.FindAllStringIndex(line, -1) {
		if partOfWord(line, loc[0]-1) || partOfWord(line, loc[1]) {
			continue
		}
		groups := strings.FieldsFunc(line[loc[0]:loc[1]], func(r rune) bool { return r == ' ' || r == '-' })
		for i := range groups {
			if pan, ok := panAt(groups[i:]); ok {
				found = append(found, pan)
			}
		}
	}
	return found
}

func partOfWord(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// panAt is the card number that groups start with, if any: one group of
// 13-19 digits, Amex's 4-6-5, or three or four groups of four and maybe a
// last short group.
func panAt(groups []string) (string, bool) {
	var candidates []string
	lens := make([]int, len(groups))
	for i, g := range groups {
		lens[i] = len(g)
	}
	switch {
	case lens[0] >= 13 && lens[0] <= 19:
		candidates = append(candidates, groups[0])
	case len(lens) >= 3 && lens[0] == 4 && lens[1] == 6 && lens[2] == 5:
		candidates = append(candidates, strings.Join(groups[:3], ""))
	default:
		fours := 0
		for fours < len(lens) && fours < 4 && lens[fours] == 4 {
			fours++
		}
		if fours < 3 {
			return "", false
		}
		if fours == 4 {
			candidates = append(candidates, strings.Join(groups[:4], ""))
		}
		if fours < len(lens) && lens[fours] <= 3 {
			candidates = append(candidates, strings.Join(groups[:fours+1], ""))
		}
	}
	for _, c := range candidates {
		if c[0] >= '2' && c[0] <= '6' && len(c) >= 13 && luhn(c) {
			return c, true
		}
	}
	return "", false
}

func luhn(digits string) bool {
	sum := 0
	for i := range len(digits) {
		d := int(digits[len(digits)-1-i] - '0')
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// maskPAN keeps the first six and last four digits, as PCI DSS allows
// showing, so the failure message does not repeat the leak.
func maskPAN(d string) string {
	return d[:6] + strings.Repeat("*", len(d)-10) + d[len(d)-4:]
}

// Main is a test package's TestMain: it runs the tests, then scans the whole
// run's logs for every key issued during it, for card numbers and for CVCs.
// A run that issued no key (a -run filter that matched no HTTP test) has no
// key to look for and is not failed for it.
func Main(m interface{ Run() int }) {
	code := m.Run()
	secretsMu.Lock()
	issued := len(secrets)
	secretsMu.Unlock()
	if code == 0 && issued > 0 {
		if err := NoSecretsLogged(); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL: secret scan of the test run's logs:", err)
			code = 1
		}
	}
	if code == 0 {
		if err := NoUnexpectedServerErrors(); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL: 5xx scan of the test run's logs:", err)
			code = 1
		}
	}
	if code == 0 {
		if err := NoCardDataLogged(); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL: card data scan of the test run's logs:", err)
			code = 1
		}
	}
	os.Exit(code)
}
