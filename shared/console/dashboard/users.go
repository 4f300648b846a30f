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
	Generation   int64  `json:"generation"`

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
	data, err := json.Marshal(rec)
	if err != nil {
		return nil, apierr.Wrap("dashboard.CreateUser", apierr.Internal, err)
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

// ConfirmTOTP turns the second factor on with secret once code is one of
// its current codes. Errors: Invalid (code), NotFound, Internal.
func (s *Service) ConfirmTOTP(ctx context.Context, email, secret, code string) error {
	if !validTOTP(code, secret, s.clock()) {
		return apierr.Invalidf("code", "the code does not match: type the 6 digits the app shows now")
	}
	_, err := s.updateUser(ctx, email, func(u *userRecord) error {
		u.TOTP, u.TOTPSecret = true, secret
		return nil
	})
	return err
}

// DisableTOTP turns the second factor off.
func (s *Service) DisableTOTP(ctx context.Context, email string) error {
	_, err := s.updateUser(ctx, email, func(u *userRecord) error {
		u.TOTP, u.TOTPSecret = false, ""
		return nil
	})
	return err
}

func validTOTP(code, secret string, now time.Time) bool {
	ok, err := totp.ValidateCustom(strings.TrimSpace(code), secret, now, totp.ValidateOpts{Period: 30, Skew: 1, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	return err == nil && ok
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
	e, err := normalEmail(email)
	if err != nil {
		return nil, err
	}
	rec, _, err := s.user(ctx, e)
	if err != nil {
		return nil, err
	}
	return &rec.User, nil
}
