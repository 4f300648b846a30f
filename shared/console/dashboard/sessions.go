package dashboard

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// SessionTTL is how long a session lives after sign-in, idle or not.
const SessionTTL = 12 * time.Hour

// Sign-in limits: at most MaxAttemptsPerEmail failed attempts per email and
// MaxAttemptsPerAddress per client address in one AttemptWindow; past
// either, every attempt is refused, right password or not, until the
// window ends. An attempt is counted before its password is checked (an
// attempt still being checked counts as a failed one) and a successful one
// is given back, so parallel attempts never get more checks than the
// limits.
const (
	MaxAttemptsPerEmail   = 5
	MaxAttemptsPerAddress = 20
	AttemptWindow         = 15 * time.Minute
)

// Session is a signed-in user's session, as a page sees it.
type Session struct {
	ID        string // sha-256 of the cookie's token (hex): the store never holds the token
	User      User   // the user as stored: its own account and its role there
	CSRF      string // every form of the session carries it
	ExpiresAt time.Time
	// Account is the account every page reads and writes: the user's own,
	// or its pair of the other mode once the session switched to it
	// (SwitchAccount); the page checks the pairing on every request.
	Account string
	// Role is the user's role on Account: User.Role on the user's own,
	// the role it holds on the pair otherwise (SetRole); pairing grants
	// nothing.
	Role Role
	// roles are the user's roles on other accounts (userRecord.Roles).
	roles map[string]Role
}

type sessionRecord struct {
	Email      string    `json:"email"`
	AccountID  string    `json:"account_id"`
	CSRF       string    `json:"csrf"`
	Generation int64     `json:"generation"`
	Address    string    `json:"address"`
	CreatedAt  time.Time `json:"created_at"`
	// Active is the paired account the session switched to ("": the
	// user's own).
	Active string `json:"active,omitempty"`
}

// Key layout (sessions table, every item with its TTL):
//
//	dashsess#<sha-256 of token> / s                 a session
//	dashlimit#email#<email> / <window start>        failed sign-ins per email
//	dashlimit#addr#<address> / <window start>       failed sign-ins per address
func sessionKey(id string) store.Key {
	return store.Key{Table: store.TableSessions, PK: "dashsess#" + id, SK: "s"}
}

func limitKey(kind, who string, window time.Time) store.Key {
	return store.Key{Table: store.TableSessions, PK: "dashlimit#" + kind + "#" + who, SK: strconv.FormatInt(window.Unix(), 10)}
}

func token() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func tokenID(tok string) string {
	sum := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(sum[:])
}

// ErrSignIn is the one answer to a failed sign-in, whether the email is
// unknown, the password or the code wrong: it says nothing of which.
var ErrSignIn = apierr.New(CodeSignInFailed, "the email, password or code is wrong")

// ErrLocked is the answer while an email or address is over its limit,
// whether or not the email exists, whatever was typed (the page answers it
// with 429).
var ErrLocked = apierr.New(CodeSignInLocked, "too many failed sign-ins: wait 15 minutes and try again")

// SignInInput is a sign-in form.
type SignInInput struct {
	Email, Password, Code string
	Address               string // the client's address
}

// dummyHash is checked when the email is unknown, so an unknown email costs
// the same time as a wrong password: an argon2id hash at DefaultArgon's
// parameters (of a password nobody has), written out rather than computed
// when the package loads, which cost every cold start an argon2 run
// (TestDummyHashHasTheDefaultParameters holds it to DefaultArgon).
const dummyHash = "$argon2id$v=19$m=19456,t=2,p=1$l49AWWI++2pvtRNfS2CsZA$EWRjSY9ECpnzaK7X+cgom0841wlU6nKi9oVhV0A/cI4"

// SignIn checks the credentials and opens a session: its token (for the
// cookie) and the session. Errors: ErrSignIn, ErrLocked, Internal.
func (s *Service) SignIn(ctx context.Context, in SignInInput) (string, *Session, error) {
	now := s.clock()
	window := now.Truncate(AttemptWindow)
	email, err := normalEmail(in.Email)
	if err != nil || len(in.Password) > MaxPassword {
		email = "invalid"
	}
	// The attempt is reserved before the password is checked (a bounded
	// add on both counters, in one write): parallel guesses cannot all
	// pass a check that reads the counters first.
	if err := s.reserve(ctx, email, in.Address, window); err != nil {
		return "", nil, err
	}
	rec, v, err := s.user(ctx, email)
	if err != nil && !apierr.Is(err, apierr.NotFound) {
		return "", nil, err
	}
	ok, step, wrong := false, int64(0), "password"
	if rec == nil {
		checkPassword(in.Password, dummyHash)
	} else {
		ok = checkPassword(in.Password, rec.PasswordHash)
		if ok && rec.TOTP {
			wrong = "two-step code (wrong, or used already)"
			step, ok = totpStep(in.Code, rec.TOTPSecret, now, rec.TOTPStep)
		}
	}
	if !ok {
		if rec == nil {
			// The same write for an email nobody has, so the two cost the
			// same (no timing oracle).
			rec = &userRecord{User: User{AccountID: UnknownEmails, Email: email}}
		}
		s.auditFailure(ctx, rec, "session.sign_in_failed", in.Address, "wrong "+wrong)
		return "", nil, ErrSignIn
	}
	tok := token()
	sr := sessionRecord{Email: rec.Email, AccountID: rec.AccountID, CSRF: token(), Generation: rec.Generation,
		Address: in.Address, CreatedAt: now.UTC()}
	data, err := json.Marshal(sr)
	if err != nil {
		return "", nil, apierr.Wrap("dashboard.SignIn", apierr.Internal, err)
	}
	id := tokenID(tok)
	exp := now.Add(SessionTTL)
	// The sign-in's audit entry is written with the session, in one
	// transaction.
	audit, _, err := s.auditOp(rec.AccountID, AuditEntry{Email: rec.Email, Role: rec.Role, Action: "session.sign_in", Address: in.Address})
	if err != nil {
		return "", nil, err
	}
	ops := []store.Op{store.Put(store.Item{Key: sessionKey(id), Data: data, ExpiresAt: exp}, store.IfAbsent), audit}
	if rec.TOTP {
		// The code's step is recorded with the session, on the user as it
		// was read: of two sign-ins with one code, one wins.
		rec.TOTPStep = step
		u, err := s.marshalUser(ctx, rec) // the secret stays sealed
		if err != nil {
			return "", nil, err
		}
		ops = append(ops, store.Put(store.Item{Key: userKey(rec.Email), Data: u}, store.IfVersion(v)))
	}
	err = s.st.Write(ctx, ops...)
	if cf, ok := store.IsConditionFailed(err); ok && cf.Index == 2 {
		s.auditFailure(ctx, rec, "session.sign_in_failed", in.Address, "two-step code used by another sign-in at the same time")
		return "", nil, ErrSignIn
	}
	if err != nil {
		return "", nil, apierr.Wrap("dashboard.SignIn", apierr.Internal, err)
	}
	s.release(ctx, email, in.Address, window)
	return tok, &Session{ID: id, User: rec.User, CSRF: sr.CSRF, ExpiresAt: exp, Account: rec.AccountID, Role: rec.Role}, nil
}

// UnknownEmails is the log (as an account id) of failed sign-ins of emails
// no user has: they have no account's log to go to. Its entries expire
// after UnknownEmailsKept.
const UnknownEmails = "-"

// UnknownEmailsKept is how long UnknownEmails keeps an entry.
const UnknownEmailsKept = 30 * 24 * time.Hour

// auditFailure writes a failed sign-in (or a failed Proof, as action) to
// the user's account's log: who,
// from where, and which factor was wrong (never what was typed); an email
// nobody has goes to UnknownEmails, at the same cost. Only checked
// attempts are written, at most the sign-in limits' worth in a window. A
// failure to write is logged: the sign-in fails either way.
func (s *Service) auditFailure(ctx context.Context, rec *userRecord, action, address, detail string) {
	op, _, err := s.auditOp(rec.AccountID, AuditEntry{Email: rec.Email, Role: rec.Role, Action: action,
		Target: rec.ID, Detail: detail, Address: address})
	if rec.AccountID == UnknownEmails {
		op.Item.ExpiresAt = s.clock().Add(UnknownEmailsKept)
	}
	if err == nil {
		err = s.st.Write(ctx, op)
	}
	if err != nil {
		s.log.Error("dashboard failed sign-in not audited", "error", err.Error())
	}
}

// reserve counts an attempt on both counters before its check, each add
// bounded by its limit (store.Op.Max), in one write: an attempt past
// either limit adds nothing and is ErrLocked. Counters live until their
// window ends.
func (s *Service) reserve(ctx context.Context, email, addr string, window time.Time) error {
	err := s.st.Write(ctx, s.limitOps(email, addr, window, 1)...)
	if errors.Is(err, store.ErrOutOfRange) {
		return ErrLocked
	}
	if err != nil {
		return apierr.Wrap("dashboard.reserve", apierr.Internal, err)
	}
	return nil
}

// release gives a successful attempt's reservation back: only failures
// count against the limits. A failure here is logged: the attempt then
// counts as a failed one, no worse than before the release existed.
func (s *Service) release(ctx context.Context, email, addr string, window time.Time) {
	if err := s.st.Write(ctx, s.limitOps(email, addr, window, -1)...); err != nil {
		s.log.Warn("dashboard sign-in reservation not given back", "error", err.Error())
	}
}

func (s *Service) limitOps(email, addr string, window time.Time, delta int64) []store.Op {
	exp := window.Add(AttemptWindow)
	var ops []store.Op
	for _, c := range []struct {
		k   store.Key
		max int64
	}{{limitKey("email", email, window), MaxAttemptsPerEmail}, {limitKey("addr", addr, window), MaxAttemptsPerAddress}} {
		op := store.Add(c.k, delta, false, store.Always)
		op.Max = c.max
		op.Item.Data, op.Item.ExpiresAt = []byte("{}"), exp
		ops = append(ops, op)
	}
	return ops
}

// ErrNoSession is the answer for a missing, expired, signed-out or
// unknown session token.
var ErrNoSession = apierr.New(CodeNoSession, "sign in to the dashboard")

// Lookup is the live session of a cookie's token: its user as stored now
// (a changed role applies at once). Errors: ErrNoSession, Internal.
func (s *Service) Lookup(ctx context.Context, tok string) (*Session, error) {
	if tok == "" || len(tok) > 100 {
		return nil, ErrNoSession
	}
	id := tokenID(tok)
	it, err := s.st.Get(ctx, sessionKey(id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrNoSession
	}
	if err != nil {
		return nil, apierr.Wrap("dashboard.Lookup", apierr.Internal, err)
	}
	if it.Expired(s.clock()) {
		return nil, ErrNoSession
	}
	var sr sessionRecord
	if err := json.Unmarshal(it.Data, &sr); err != nil {
		return nil, apierr.Wrap("dashboard.Lookup", apierr.Internal, err)
	}
	u, _, err := s.user(ctx, sr.Email)
	if apierr.Is(err, apierr.NotFound) {
		return nil, ErrNoSession
	}
	if err != nil {
		return nil, err
	}
	if u.Generation != sr.Generation || u.AccountID != sr.AccountID {
		return nil, ErrNoSession
	}
	// A session switched to an account the user no longer holds a role
	// on reads the user's own again.
	acct, role := u.AccountID, u.Role
	if r := u.Roles[sr.Active]; sr.Active != "" && r.Valid() {
		acct, role = sr.Active, r
	}
	return &Session{ID: id, User: u.User, CSRF: sr.CSRF, ExpiresAt: it.ExpiresAt, Account: acct, Role: role, roles: u.Roles}, nil
}

// SwitchAccount makes the session read and write accountID from now on:
// the user's own account, or the account paired with it (accounts.Pair)
// when the user holds a role there (SetRole): the role it holds there, not
// the one on its own account; without one the switch is Forbidden
// (CodeRole). Any other account is NotFound, as another account's record
// is. The change and its audit entry (in the user's own account's log) are
// one transaction. Errors: NotFound, Forbidden, Conflict, Internal.
func (s *Service) SwitchAccount(ctx context.Context, sess *Session, accountID, address string) error {
	home := sess.User.AccountID
	if accountID != home {
		other, err := s.pairOf(ctx, home, accountID)
		if err != nil {
			return err
		}
		u, _, err := s.user(ctx, sess.User.Email)
		if err != nil {
			return err
		}
		if !u.Roles[accountID].Valid() {
			return apierr.New(CodeRole, "You have no role on the %s account: an owner of it gives you one.", other.Mode)
		}
	}
	it, err := s.st.Get(ctx, sessionKey(sess.ID))
	if errors.Is(err, store.ErrNotFound) {
		return ErrNoSession
	}
	if err != nil {
		return apierr.Wrap("dashboard.SwitchAccount", apierr.Internal, err)
	}
	var sr sessionRecord
	if err := json.Unmarshal(it.Data, &sr); err != nil {
		return apierr.Wrap("dashboard.SwitchAccount", apierr.Internal, err)
	}
	sr.Active = ""
	if accountID != home {
		sr.Active = accountID
	}
	data, err := json.Marshal(sr)
	if err != nil {
		return apierr.Wrap("dashboard.SwitchAccount", apierr.Internal, err)
	}
	e := AuditEntry{Email: sess.User.Email, Role: sess.User.Role, Action: "session.switch_account", Target: accountID, Address: address}
	return s.Audited(ctx, home, e, func(ctx context.Context) (string, error) {
		err := s.st.Write(ctx, store.Put(store.Item{Key: it.Key, Data: data, ExpiresAt: it.ExpiresAt}, store.IfVersion(it.Version)))
		if _, ok := store.IsConditionFailed(err); ok {
			return "", apierr.New(apierr.CodeSessionChanged, "the session changed meanwhile (signed out?): reload and try again")
		}
		if err != nil {
			return "", apierr.Wrap("dashboard.SwitchAccount", apierr.Internal, err)
		}
		return "", nil
	})
}

// CheckCSRF compares a form's token with the session's in constant time.
func (s *Session) CheckCSRF(formToken string) bool {
	return formToken != "" && subtle.ConstantTimeCompare([]byte(formToken), []byte(s.CSRF)) == 1
}

// SignOut ends one session.
func (s *Service) SignOut(ctx context.Context, sess *Session) error {
	if err := s.st.Write(ctx, store.Delete(sessionKey(sess.ID), store.Always)); err != nil {
		return apierr.Wrap("dashboard.SignOut", apierr.Internal, err)
	}
	return nil
}

// SignOutEverywhere ends every session of the user, on every browser: the
// user's generation moves on, and Lookup refuses sessions of an older one.
func (s *Service) SignOutEverywhere(ctx context.Context, email string) error {
	_, err := s.updateUser(ctx, email, func(u *userRecord) error {
		u.Generation++
		return nil
	})
	return err
}
