package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/paygate/paygate/shared/console/dashboard"
)

func init() {
	register(command{Name: "users create", Summary: "create a dashboard user of an account (the password is shown once unless given)", Flags: usersCreate})
	register(command{Name: "users role", Summary: "set a dashboard user's role on its account, or on its account's pair (--role none takes that away): pairing grants nothing", Flags: usersRole})
	register(command{Name: "users password", Summary: "set a dashboard user's password (a new one is shown once unless given); signs out its sessions", Flags: usersPassword})
}

type newUserOut struct {
	User     dashboard.User `json:"user"`
	Password string         `json:"password,omitempty"`
}

func dash(e *env, ctx context.Context) (*dashboard.Service, error) {
	d, err := e.Deps(ctx)
	if err != nil {
		return nil, err
	}
	return dashboard.New(dashboard.Config{Store: d.Store, Accounts: d.Accounts, Keys: d.Keys, Idem: d.Idem, Clock: d.Clock, Log: d.Log}), nil
}

func usersCreate(fs *flag.FlagSet) action {
	id := fs.String("account", "", "account id (required)")
	email := fs.String("email", "", "the user's email, its sign-in name (required)")
	role := fs.String("role", "viewer", "owner, developer or viewer")
	password := fs.String("password", "", "the password (at least 12 characters); empty: a random one, shown once")
	return func(ctx context.Context, e *env) error {
		if err := required([2]string{"account", *id}, [2]string{"email", *email}); err != nil {
			return err
		}
		if !dashboard.Role(*role).Valid() {
			return usagef("--role must be owner, developer or viewer, not %q", *role)
		}
		s, err := dash(e, ctx)
		if err != nil {
			return err
		}
		pw, shown := *password, ""
		if pw == "" {
			pw = dashboard.NewPassword()
			shown = pw
		}
		var u *dashboard.User
		err = e.audited(ctx, *id, "user.create", "", *email+" as "+*role, func(ctx context.Context) (string, error) {
			u, err = s.CreateUser(ctx, dashboard.NewUser{AccountID: *id, Email: *email, Role: dashboard.Role(*role), Password: pw})
			if err != nil {
				return "", err
			}
			return u.ID, nil
		})
		if err != nil {
			return err
		}
		return e.print(newUserOut{User: *u, Password: shown}, func(w io.Writer) {
			fmt.Fprintf(w, "dashboard user %s (%s) of account %s\n", u.Email, u.Role, u.AccountID)
			if shown != "" {
				fmt.Fprintf(w, "password: %s\n  ^ shown only now: passwords are stored as argon2id hashes.\n", shown)
			}
		})
	}
}

func usersPassword(fs *flag.FlagSet) action {
	email := fs.String("email", "", "the user's email (required)")
	password := fs.String("password", "", "the new password; empty: a random one, shown once")
	return func(ctx context.Context, e *env) error {
		if err := required([2]string{"email", *email}); err != nil {
			return err
		}
		s, err := dash(e, ctx)
		if err != nil {
			return err
		}
		u, err := s.UserByEmail(ctx, *email)
		if err != nil {
			return err
		}
		pw, shown := *password, ""
		if pw == "" {
			pw = dashboard.NewPassword()
			shown = pw
		}
		err = e.audited(ctx, u.AccountID, "user.password", u.ID, u.Email+"'s password set; its sessions signed out", func(ctx context.Context) (string, error) {
			return "", s.SetPassword(ctx, u.Email, pw)
		})
		if err != nil {
			return err
		}
		return e.print(newUserOut{User: *u, Password: shown}, func(w io.Writer) {
			fmt.Fprintf(w, "password of %s changed; its sessions are signed out\n", u.Email)
			if shown != "" {
				fmt.Fprintf(w, "password: %s\n  ^ shown only now.\n", shown)
			}
		})
	}
}

func usersRole(fs *flag.FlagSet) action {
	email := fs.String("email", "", "the user's email (required)")
	id := fs.String("account", "", "the user's account, or its pair (required)")
	role := fs.String("role", "", "owner, developer or viewer; none takes the role on the pair away (required)")
	return func(ctx context.Context, e *env) error {
		if err := required([2]string{"email", *email}, [2]string{"account", *id}, [2]string{"role", *role}); err != nil {
			return err
		}
		r := dashboard.Role(*role)
		if *role == "none" {
			r = ""
		} else if !r.Valid() {
			return usagef("--role must be owner, developer, viewer or none, not %q", *role)
		}
		s, err := dash(e, ctx)
		if err != nil {
			return err
		}
		u, err := s.UserByEmail(ctx, *email)
		if err != nil {
			return err
		}
		err = e.audited(ctx, *id, "user.role", u.ID, u.Email+" is "+*role+" on this account", func(ctx context.Context) (string, error) {
			u, err = s.SetRole(ctx, u.Email, *id, r)
			return "", err
		})
		if err != nil {
			return err
		}
		return e.print(struct {
			User    dashboard.User `json:"user"`
			Account string         `json:"account"`
			Role    string         `json:"role"`
		}{*u, *id, *role}, func(w io.Writer) {
			fmt.Fprintf(w, "dashboard user %s is %s on account %s\n", u.Email, *role, *id)
		})
	}
}
