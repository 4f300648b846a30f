package dashboard

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
	"golang.org/x/crypto/argon2"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/secretbox"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// Role is what a dashboard user may do.
type Role string

const (
	// Owner does everything, and alone sees the audit log.
	Owner Role = "owner"
	// Developer does everything but read the audit log: payments, links,
	// keys, API version, webhooks.
	Developer Role = "developer"
	// Viewer reads every page and changes nothing.
	Viewer Role = "viewer"
)

// Roles lists the roles, most powerful first.
var Roles = []Role{Owner, Developer, Viewer}

// Valid reports whether r is a known role.
func (r Role) Valid() bool { return r == Owner || r == Developer || r == Viewer }

// CanChange reports whether r may post forms that change anything.
func (r Role) CanChange() bool { return r == Owner || r == Developer }

// User is a person who signs in to one account's dashboard.
type User struct {
	ID        string    `json:"id"`
	AccountID string    `json:"account_id"`
	Email     string    `json:"email"` // lower case; unique across accounts
	Role      Role      `json:"role"`
	CreatedAt time.Time `json:"created_at"`
	// TOTP is set once the user has turned on the second factor.
	TOTP bool `json:"totp"`
}

// userRecord is the stored user: the password's argon2id hash (PHC
// string), the TOTP secret while enabled, and the session generation that
// sign-out everywhere bumps (sessions of an older one are dead).
//
// The TOTP secret is stored sealed (shared/domain/secretbox); in memory,
// once read (Service.user), it is in clear, and sealedTOTP keeps the stored
// form so that a write that left it alone stores it as it was. A record of
// before sealing holds it in clear: it is read as it is and sealed on its
// next write.
type userRecord struct {
	User
	PasswordHash string `json:"password_hash"`
	TOTPSecret   string `json:"totp_secret,omitempty"`
	// TOTPStep is the last time step (unix time / 30) whose code was
	// accepted: a code is accepted once, and no older one after it.
	TOTPStep   int64 `json:"totp_step,omitempty"`
	Generation int64 `json:"generation"`
	// Roles are the roles the user holds on accounts other than its own:
	// only its account's pair, the one account a session may switch to.
	Roles map[string]Role `json:"roles,omitempty"`

	sealedTOTP, openedTOTP string
}

// marshalUser is rec as stored: its TOTP secret sealed.
func (s *Service) marshalUser(ctx context.Context, rec *userRecord) ([]byte, error) {
	stored := *rec
	switch {
	case stored.TOTPSecret == "":
	case rec.sealedTOTP != "" && stored.TOTPSecret == rec.openedTOTP:
		stored.TOTPSecret = rec.sealedTOTP
	default:
		sealed, err := s.box.Seal(ctx, []byte(stored.TOTPSecret))
		if err != nil {
			return nil, apierr.Wrap("dashboard.marshalUser", apierr.Unavailable, err)
		}
		stored.TOTPSecret = sealed
	}
	data, err := json.Marshal(&stored)
	if err != nil {
		return nil, apierr.Wrap("dashboard.marshalUser", apierr.Internal, err)
	}
	return data, nil
}

// Key layout (accounts table):
//
//	dashuser#<email> / user               the user (by email: sign-in reads it)
//	dashusers#<account> / <email>         the account's users, for its list
func userKey(email string) store.Key {
	return store.Key{Table: store.TableAccounts, PK: "dashuser#" + email, SK: "user"}
}

func accountUserKey(accountID, email string) store.Key {
	return store.Key{Table: store.TableAccounts, PK: "dashusers#" + accountID, SK: email}
}

// ArgonParams are argon2id's costs. DefaultArgon is OWASP's second
// recommendation (19 MiB, 2 passes, 1 lane): about 30 ms on a Lambda of
// 512 MB, small enough for its memory.
type ArgonParams struct {
	Memory  uint32 // KiB
	Time    uint32
	Threads uint8
}

// DefaultArgon is the cost of every new password hash.
var DefaultArgon = ArgonParams{Memory: 19 * 1024, Time: 2, Threads: 1}

// MinPassword is the shortest password accepted (NIST 800-63B's 8 for
// chosen passwords, raised: dashboards move money).
const MinPassword = 12

// MaxPassword bounds the work an attacker's long password costs.
const MaxPassword = 256

// hashPassword is the PHC string of argon2id(password) with a fresh salt.
func hashPassword(password string, p ArgonParams) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	sum := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, 32)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads,
		b64.EncodeToString(salt), b64.EncodeToString(sum)), nil
}

// checkPassword compares password with a PHC string in constant time.
func checkPassword(password, phc string) bool {
	parts := strings.Split(phc, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var v int
	var p ArgonParams
	if _, err := fmt.Sscanf(parts[2], "v=%d", &v); err != nil || v != argon2.Version {
		return false
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &p.Threads); err != nil {
		return false
	}
	b64 := base64.RawStdEncoding
	salt, err1 := b64.DecodeString(parts[4])
	want, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// normalEmail is the stored form of an email: trimmed, lower case, and a
// valid address.
func normalEmail(email string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(email))
	if e == "" {
		return "", apierr.Missing("email")
	}
	if a, err := mail.ParseAddress(e); err != nil || a.Address != e || len(e) > 254 {
		return "", apierr.Invalidf("email", "email must be an address such as owner@example.com")
	}
	return e, nil
}

func checkNewPassword(pw string) error {
	if n := len([]rune(pw)); n < MinPassword || len(pw) > MaxPassword {
		return apierr.Invalidf("password", "the password must have %d to %d characters", MinPassword, MaxPassword)
	}
	return nil
}

// NewUser is what CreateUser needs.
type NewUser struct {
	AccountID string
	Email     string
	Role      Role
	Password  string
}

// CreateUser stores a user of an existing account. Errors: Invalid (email,
// role, password), NotFound (the account), Conflict (user_exists: the
// email belongs to a user, of this or another account), Internal.
func (s *Service) CreateUser(ctx context.Context, in NewUser) (*User, error) {
	email, err := normalEmail(in.Email)
	if err != nil {
		return nil, err
	}
	if !in.Role.Valid() {
		return nil, apierr.Invalidf("role", "role must be one of %v", Roles)
	}
	if err := checkNewPassword(in.Password); err != nil {
		return nil, err
	}
	if _, err := s.accounts.Get(ctx, in.AccountID); err != nil {
		return nil, err
	}
	hash, err := hashPassword(in.Password, s.argon)
	if err != nil {
		return nil, apierr.Wrap("dashboard.CreateUser", apierr.Internal, err)
	}
	rec := userRecord{User: User{ID: ids.New(), AccountID: in.AccountID, Email: email, Role: in.Role,
		CreatedAt: s.clock().UTC().Truncate(time.Second)}, PasswordHash: hash}
	data, err := s.marshalUser(ctx, &rec)
	if err != nil {
		return nil, err
	}
	listed, err := json.Marshal(rec.User)
	if err != nil {
		return nil, apierr.Wrap("dashboard.CreateUser", apierr.Internal, err)
	}
	err = s.st.Write(ctx,
		store.Put(store.Item{Key: userKey(email), Data: data}, store.IfAbsent),
		store.Put(store.Item{Key: accountUserKey(in.AccountID, email), Data: listed}, store.IfAbsent))
	if _, ok := store.IsConditionFailed(err); ok {
		return nil, apierr.New(CodeUserExists, "a dashboard user with email %s exists", email)
	}
	if err != nil {
		return nil, apierr.Wrap("dashboard.CreateUser", apierr.Internal, err)
	}
	return &rec.User, nil
}

// user reads a user by email: NotFound when there is none.
func (s *Service) user(ctx context.Context, email string) (*userRecord, int64, error) {
	it, err := s.st.Get(ctx, userKey(email))
	if errors.Is(err, store.ErrNotFound) {
		return nil, 0, apierr.NotFoundf("no such user")
	}
	if err != nil {
		return nil, 0, apierr.Wrap("dashboard.user", apierr.Internal, err)
	}
	var rec userRecord
	if err := json.Unmarshal(it.Data, &rec); err != nil {
		return nil, 0, apierr.Wrap("dashboard.user", apierr.Internal, err)
	}
	if secretbox.IsSealed(rec.TOTPSecret) {
		pt, err := s.box.Open(ctx, rec.TOTPSecret)
		if err != nil {
			return nil, 0, apierr.Wrap("dashboard.user", apierr.Internal, err)
		}
		rec.sealedTOTP, rec.TOTPSecret, rec.openedTOTP = rec.TOTPSecret, string(pt), string(pt)
	}
	return &rec, it.Version, nil
}

// Users lists an account's users (at most 100, by email).
func (s *Service) Users(ctx context.Context, accountID string) ([]User, error) {
	page, err := s.st.Query(ctx, store.Query{Table: store.TableAccounts, PK: "dashusers#" + accountID, Limit: 100})
	if err != nil {
		return nil, apierr.Wrap("dashboard.Users", apierr.Internal, err)
	}
	out := make([]User, 0, len(page.Items))
	for _, it := range page.Items {
		var u User
		if err := json.Unmarshal(it.Data, &u); err != nil {
			return nil, apierr.Wrap("dashboard.Users", apierr.Internal, err)
		}
		out = append(out, u)
	}
	return out, nil
}

// updateUser applies fn to the user under optimistic concurrency and keeps
// the account's list copy in step.
func (s *Service) updateUser(ctx context.Context, email string, fn func(*userRecord) error) (*userRecord, error) {
	var out *userRecord
	race := store.Race{Op: "dashboard.updateUser", What: "dashboard user " + email, Attempts: 5}
	err := race.Run(ctx, func(int) error {
		rec, v, err := s.user(ctx, email)
		if err != nil {
			return err
		}
		if err := fn(rec); err != nil {
			return err
		}
		data, err := s.marshalUser(ctx, rec)
		if err != nil {
			return err
		}
		listed, err := json.Marshal(rec.User)
		if err != nil {
			return apierr.Wrap("dashboard.updateUser", apierr.Internal, err)
		}
		err = s.st.Write(ctx, store.Put(store.Item{Key: userKey(email), Data: data}, store.IfVersion(v)),
			store.Put(store.Item{Key: accountUserKey(rec.AccountID, email), Data: listed}, store.Always))
		if _, ok := store.IsConditionFailed(err); ok {
			return store.Lost()
		}
		if err != nil {
			return apierr.Wrap("dashboard.updateUser", apierr.Internal, err)
		}
		out = rec
		return nil
	})
	return out, err
}

// SetRole gives the user role on accountID: its own account (the role it
// signs in with), or its account's pair, the one other account a session
// may switch to; role "" there takes the role away (a session switched to
// it reads the user's own account again). Pairing grants nothing: a user
// holds a role on the pair only once given one here. Errors: Invalid
// (role), NotFound (the user; an account that is neither), Internal.
func (s *Service) SetRole(ctx context.Context, email, accountID string, role Role) (*User, error) {
	u, err := s.userByEmail(ctx, email)
	if err != nil {
		return nil, err
	}
	email = u.Email
	if accountID != u.AccountID {
		if _, err := s.pairOf(ctx, u.AccountID, accountID); err != nil {
			return nil, err
		}
	}
	if !role.Valid() && (role != "" || accountID == u.AccountID) {
		return nil, apierr.Invalidf("role", "role must be one of %v", Roles)
	}
	rec, err := s.updateUser(ctx, email, func(u *userRecord) error {
		switch {
		case accountID == u.AccountID:
			u.Role = role
		case role == "":
			delete(u.Roles, accountID)
		default:
			if u.Roles == nil {
				u.Roles = map[string]Role{}
			}
			u.Roles[accountID] = role
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &rec.User, nil
}

// TOTPIssuer names the service in authenticator apps.
const TOTPIssuer = "paygate"

// StartTOTP makes a new TOTP secret for the user to enrol in an app: the
// otpauth:// URL (for a QR code) and the secret to type by hand. Nothing is
// stored until ConfirmTOTP proves the app has it.
func (s *Service) StartTOTP(email string) (url, secret string, err error) {
	k, err := totp.Generate(totp.GenerateOpts{Issuer: TOTPIssuer, AccountName: email})
	if err != nil {
		return "", "", apierr.Wrap("dashboard.StartTOTP", apierr.Internal, err)
	}
	return k.URL(), k.Secret(), nil
}

// Proof is what turning two-step sign-in off, or replacing its secret,
// needs besides the session: a current code of the app (accepted once, as
// at sign-in) or the user's password. Address is the client's: a wrong
// proof counts against the sign-in limits, as a failed sign-in does.
type Proof struct {
	Code, Password string
	Address        string
}

// ErrProof is the answer to a missing or wrong Proof.
var ErrProof = apierr.Invalidf("current_code", "type the code your authenticator app shows now, or your password")

// ConfirmTOTP turns the second factor on with secret once code is one of
// its current codes. When it is on already this replaces its secret, and
// needs proof (a current code of the old secret, or the password); off,
// proof is not read. Errors: Invalid (code; current_code: ErrProof),
// ErrLocked, NotFound, Internal.
func (s *Service) ConfirmTOTP(ctx context.Context, email, secret, code string, proof Proof) error {
	now := s.clock()
	step, ok := totpStep(code, secret, now, 0)
	if !ok {
		return apierr.Invalidf("code", "the code does not match: type the 6 digits the app shows now")
	}
	p, err := s.prove(ctx, email, proof)
	if err != nil {
		return err
	}
	_, err = s.updateUser(ctx, email, func(u *userRecord) error {
		if err := p.holds(u); err != nil {
			return err
		}
		u.TOTP, u.TOTPSecret, u.TOTPStep = true, secret, step
		return nil
	})
	return err
}

// DisableTOTP turns the second factor off, with proof (a current code, or
// the password). Errors: Invalid (current_code: ErrProof), ErrLocked,
// NotFound, Internal.
func (s *Service) DisableTOTP(ctx context.Context, email string, proof Proof) error {
	p, err := s.prove(ctx, email, proof)
	if err != nil {
		return err
	}
	_, err = s.updateUser(ctx, email, func(u *userRecord) error {
		if err := p.holds(u); err != nil {
			return err
		}
		u.TOTP, u.TOTPSecret, u.TOTPStep = false, "", 0
		return nil
	})
	return err
}

// proven is a checked Proof: the secret it was checked against ("" when
// the second factor was off: nothing to prove) and the code's step (0: the
// password).
type proven struct {
	secret string
	step   int64
}

// holds re-checks a proof against the user as it is written: the same
// secret, and a code's step still unused (two parallel uses of one code:
// one wins, the other's retry finds its step taken). It records the step.
func (p proven) holds(u *userRecord) error {
	if u.TOTPSecret != p.secret {
		return apierr.Kindf(apierr.Conflict, "two-step sign-in changed meanwhile: reload the page and try again")
	}
	if p.step != 0 {
		if u.TOTPStep >= p.step {
			return ErrProof
		}
		u.TOTPStep = p.step
	}
	return nil
}

// prove checks proof for a change of the user's second factor: nothing
// while it is off; a code of its secret not used before, or the password,
// while on. Each check is reserved against the sign-in limits first (a
// session alone must not get unlimited guesses) and given back when right.
func (s *Service) prove(ctx context.Context, email string, proof Proof) (proven, error) {
	rec, _, err := s.user(ctx, email)
	if err != nil {
		return proven{}, err
	}
	if !rec.TOTP {
		return proven{}, nil
	}
	if proof.Code == "" && proof.Password == "" {
		return proven{}, ErrProof
	}
	now := s.clock()
	window := now.Truncate(AttemptWindow)
	// The counters are written on their own, not with the change's audit
	// entry (Audited): a wrong proof counts, and changes nothing.
	ctx = store.WithoutExtras(ctx)
	if err := s.reserve(ctx, email, proof.Address, window); err != nil {
		return proven{}, err
	}
	p := proven{secret: rec.TOTPSecret}
	ok := false
	if proof.Code != "" {
		p.step, ok = totpStep(proof.Code, rec.TOTPSecret, now, rec.TOTPStep)
	}
	if !ok && proof.Password != "" && len(proof.Password) <= MaxPassword {
		p.step, ok = 0, checkPassword(proof.Password, rec.PasswordHash)
	}
	if !ok {
		s.auditFailure(ctx, rec, "user.totp_proof_failed", proof.Address, "wrong code or password to change two-step sign-in")
		return proven{}, ErrProof
	}
	s.release(ctx, email, proof.Address, window)
	return p, nil
}

// totpStep is the time step of code when it is a code of secret at now
// (one step of skew either way: clocks drift) of a step after "after"
// (the last one accepted): a code is accepted once.
func totpStep(code, secret string, now time.Time, after int64) (int64, bool) {
	code = strings.TrimSpace(code)
	if len(code) != 6 || secret == "" {
		return 0, false
	}
	opts := totp.ValidateOpts{Period: 30, Skew: 0, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}
	cur := now.Unix() / 30
	for step := cur - 1; step <= cur+1; step++ {
		if step <= after {
			continue
		}
		want, err := totp.GenerateCodeCustom(secret, time.Unix(step*30, 0), opts)
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return step, true
		}
	}
	return 0, false
}

// SetPassword replaces a user's password and signs out all its sessions.
func (s *Service) SetPassword(ctx context.Context, email, password string) error {
	if err := checkNewPassword(password); err != nil {
		return err
	}
	hash, err := hashPassword(password, s.argon)
	if err != nil {
		return apierr.Wrap("dashboard.SetPassword", apierr.Internal, err)
	}
	_, err = s.updateUser(ctx, email, func(u *userRecord) error {
		u.PasswordHash = hash
		u.Generation++
		return nil
	})
	return err
}

// NewPassword is a random password for a user created by a tool (make run's
// sandbox owner, the admin CLI): 20 characters of base64url, 120 bits.
func NewPassword() string {
	b := make([]byte, 15)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// UserByEmail is the user with email. Errors: Invalid (email), NotFound,
// Internal.
func (s *Service) UserByEmail(ctx context.Context, email string) (*User, error) {
	rec, err := s.userByEmail(ctx, email)
	if err != nil {
		return nil, err
	}
	return &rec.User, nil
}

// userByEmail is the stored user with email as typed (normalEmail).
func (s *Service) userByEmail(ctx context.Context, email string) (*userRecord, error) {
	e, err := normalEmail(email)
	if err != nil {
		return nil, err
	}
	rec, _, err := s.user(ctx, e)
	return rec, err
}

// pairOf is accountID when it is home's pair; any other account is
// NotFound, as another account's record is.
func (s *Service) pairOf(ctx context.Context, home, accountID string) (*accounts.Account, error) {
	own, err := s.accounts.Get(ctx, home)
	if err != nil {
		return nil, err
	}
	other, err := s.accounts.Get(ctx, accountID)
	if apierr.Is(err, apierr.NotFound) || err == nil && !accounts.Paired(own, other) {
		return nil, apierr.NotFoundf("no such account: %s", accountID)
	}
	return other, err
}
