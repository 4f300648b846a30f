package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/paygate/paygate/shared/console/dashboard"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/auth"
	"github.com/paygate/paygate/shared/store"
)

// sandboxRecord remembers which account is the local sandbox, so restarts on
// the same data directory reuse it.
var sandboxRecord = store.Key{Table: store.TableAccounts, PK: "local#sandbox", SK: "account"}

type sandboxRef struct {
	AccountID string `json:"account_id"`
}

// sandbox is what the banner reports.
type sandbox struct {
	AccountID string
	Created   bool      // the account was created at this start
	Secret    string    // a key created at this start; shown once, never stored
	Imported  *auth.Key // the key given in SANDBOX_API_KEY
	// DashboardPassword is the sandbox owner's password when it was made
	// at this start (shown once); DashboardFromEnv when it is
	// SANDBOX_DASHBOARD_PASSWORD's.
	DashboardPassword string
	DashboardFromEnv  bool
}

// SandboxOwner is the sandbox account's dashboard owner.
const SandboxOwner = "owner@sandbox.test"

// ensureDashboardOwner creates the sandbox's dashboard owner at its first
// start, with envPassword (SANDBOX_DASHBOARD_PASSWORD) or a random password
// shown once. With envPassword the owner's password is set to it on every
// start, so the variable is always the way in.
func ensureDashboardOwner(ctx context.Context, d *app.Deps, sb *sandbox, envPassword string) error {
	s := dashboard.New(dashboard.Config{Store: d.Store, Accounts: d.Accounts, Keys: d.Keys, Idem: d.Idem, Clock: d.Clock, Log: d.Log})
	_, err := s.UserByEmail(ctx, SandboxOwner)
	switch {
	case err == nil && envPassword != "":
		sb.DashboardFromEnv = true
		return s.SetPassword(ctx, SandboxOwner, envPassword)
	case err == nil:
		return nil
	case !apierr.Is(err, apierr.NotFound):
		return err
	}
	pw := envPassword
	if pw == "" {
		pw = dashboard.NewPassword()
		sb.DashboardPassword = pw
	} else {
		sb.DashboardFromEnv = true
	}
	_, err = s.CreateUser(ctx, dashboard.NewUser{AccountID: sb.AccountID, Email: SandboxOwner, Role: dashboard.Owner, Password: pw})
	return err
}

// ensureSandbox finds or creates the sandbox account. A new account gets a
// fresh secret key unless envKey (SANDBOX_API_KEY) is set, in which case that
// key is registered instead, on every start (a no-op once it exists).
func ensureSandbox(ctx context.Context, d *app.Deps, envKey string) (*sandbox, error) {
	sb := &sandbox{}
	it, err := d.Store.Get(ctx, sandboxRecord)
	switch {
	case err == nil:
		var ref sandboxRef
		if err := json.Unmarshal(it.Data, &ref); err != nil {
			return nil, fmt.Errorf("sandbox record: %w", err)
		}
		if _, err := d.Accounts.Get(ctx, ref.AccountID); err != nil {
			return nil, fmt.Errorf("sandbox account %s: %w", ref.AccountID, err)
		}
		sb.AccountID = ref.AccountID
	case errors.Is(err, store.ErrNotFound):
		if err := createSandbox(ctx, d, sb, envKey == ""); err != nil {
			return nil, err
		}
	default:
		return nil, err
	}
	if envKey != "" {
		k, err := d.Keys.Import(ctx, sb.AccountID, envKey, "SANDBOX_API_KEY")
		if err != nil {
			return nil, fmt.Errorf("SANDBOX_API_KEY: %w", err)
		}
		sb.Imported = k
	}
	return sb, nil
}

func createSandbox(ctx context.Context, d *app.Deps, sb *sandbox, withKey bool) error {
	a, err := d.Accounts.Create(ctx, accounts.NewAccount{Name: "Sandbox", Mode: accounts.Test})
	if err != nil {
		return err
	}
	sb.AccountID, sb.Created = a.ID, true
	if withKey {
		_, secret, err := d.Keys.Create(ctx, a.ID, auth.NewKey{Kind: auth.Secret, Name: "sandbox"})
		if err != nil {
			return err
		}
		sb.Secret = secret
	}
	data, _ := json.Marshal(sandboxRef{AccountID: a.ID})
	return d.Store.Write(ctx, store.Put(store.Item{Key: sandboxRecord, Data: data}, store.IfAbsent))
}

// printBanner tells a person where the gateway is and how to call it, and
// gives a payment link to pay with a test card. The secret appears only
// when it was created at this start.
func printBanner(w io.Writer, url, dataDir string, sb *sandbox, link string) {
	rule := strings.Repeat("=", 72)
	lines := []string{
		rule,
		"paygate local gateway: " + url,
		"sandbox account: " + sb.AccountID + " (test mode)",
	}
	switch {
	case sb.Secret != "":
		lines = append(lines,
			"sandbox secret key: "+sb.Secret,
			"  ^ shown only now: keys are stored hashed. Save it.",
			"try: curl -H 'Authorization: "+sb.Secret+"' "+url+"/v1/merchants/me")
	case sb.Imported != nil:
		lines = append(lines, "sandbox secret key: the one in SANDBOX_API_KEY ("+sb.Imported.Prefix+"...)")
	default:
		lines = append(lines,
			"sandbox secret key: shown at first start (keys are stored hashed).",
			"  for a new one, stop the gateway (it holds the store) and run:",
			"  go run ./infra/admin keys create --data-dir "+dataDir+" --account "+sb.AccountID)
	}
	switch {
	case sb.DashboardPassword != "":
		lines = append(lines, "dashboard: "+url+"/dashboard  sign in as "+SandboxOwner+" with "+sb.DashboardPassword,
			"  ^ shown only now: passwords are stored hashed. Save it.")
	case sb.DashboardFromEnv:
		lines = append(lines, "dashboard: "+url+"/dashboard  sign in as "+SandboxOwner+" with SANDBOX_DASHBOARD_PASSWORD")
	default:
		lines = append(lines, "dashboard: "+url+"/dashboard  sign in as "+SandboxOwner+" (password shown at first start;",
			"  a new one: go run ./infra/admin users password --data-dir "+dataDir+" --email "+SandboxOwner+")")
	}
	lines = append(lines,
		"sample payment link (25.00 USD): "+link,
		"  open it and pay with 4111 1111 1111 1111, 03/30, CVC 737 (more test cards in docs/payments.md)",
		rule)
	fmt.Fprintln(w, strings.Join(lines, "\n"))
}
