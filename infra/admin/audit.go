package main

import (
	"context"
	"os"

	"github.com/paygate/paygate/shared/console/dashboard"
)

// The admin CLI's changes of users and keys are written to the account's
// audit log, the one the dashboard's audit page shows, each in the change's
// own transaction (dashboard.Service.Audited): who ran the CLI (its
// operating-system user, or ADMIN_OPERATOR) as the entry's email, the role
// "admin-cli", and "admin CLI on <host>" as its address.

// cliRole is the audit entries' role: no dashboard user holds it.
const cliRole dashboard.Role = "admin-cli"

// operator names who ran the CLI.
func (e *env) operator() string {
	for _, k := range []string{"ADMIN_OPERATOR", "USER", "LOGNAME"} {
		if v := e.Getenv(k); v != "" {
			return v
		}
	}
	return "unknown"
}

// audited runs change under an audit entry of accountID's log (change may
// return the record's id when it makes it).
func (e *env) audited(ctx context.Context, accountID, action, target, detail string, change func(ctx context.Context) (string, error)) error {
	s, err := dash(e, ctx)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	entry := dashboard.AuditEntry{Email: e.operator(), Role: cliRole, Action: action, Target: target, Detail: detail,
		Address: "admin CLI on " + or(host, "an unknown host")}
	return s.Audited(ctx, accountID, entry, change)
}
