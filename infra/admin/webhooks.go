package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// Support work on the webhook pipeline: what an account's event log holds,
// and what each delivery attempt to an endpoint got.
func init() {
	register(command{Name: "events list", Summary: "list an account's events, newest first (--type, --limit)", Flags: eventsList})
	register(command{Name: "webhooks deliveries", Summary: "list the delivery attempts of a webhook endpoint, newest first", Flags: webhookDeliveries})
	register(command{Name: "webhooks endpoints", Summary: "list an account's webhook endpoints (no secrets)", Flags: webhookEndpoints})
}

func limitFlag(fs *flag.FlagSet) *int { return fs.Int("limit", 20, "how many, 1 to 100") }

func checkLimit(n int) error {
	if n < 1 || n > 100 {
		return usagef("--limit must be 1 to 100")
	}
	return nil
}

func eventsList(fs *flag.FlagSet) action {
	id := fs.String("account", "", "account id (required)")
	typ := fs.String("type", "", "only events of this type")
	limit := limitFlag(fs)
	return func(ctx context.Context, e *env) error {
		if err := required([2]string{"account", *id}); err != nil {
			return err
		}
		if err := checkLimit(*limit); err != nil {
			return err
		}
		if *typ != "" && !eventlog.Known(*typ) {
			return usagef("--type: unknown event type %q; known: %v", *typ, eventlog.Types())
		}
		d, err := e.accountDeps(ctx, *id)
		if err != nil {
			return err
		}
		evs, _, err := webhooks.New(d.Store, d.Clock).Events(ctx, *id, webhooks.EventFilter{Type: *typ}, *limit, "")
		if err != nil {
			return err
		}
		return e.print(evs, func(w io.Writer) {
			if len(evs) == 0 {
				fmt.Fprintln(w, "no events")
				return
			}
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tTYPE\tCREATED")
			for _, ev := range evs {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", ev.ID, ev.Type, time.Unix(ev.Created, 0).UTC().Format(time.RFC3339))
			}
			tw.Flush()
		})
	}
}

func webhookDeliveries(fs *flag.FlagSet) action {
	id := fs.String("account", "", "account id (required)")
	ep := fs.String("endpoint-id", "", "webhook endpoint id, we_... (required)")
	limit := limitFlag(fs)
	return func(ctx context.Context, e *env) error {
		if err := required([2]string{"account", *id}, [2]string{"endpoint-id", *ep}); err != nil {
			return err
		}
		if err := checkLimit(*limit); err != nil {
			return err
		}
		d, err := e.accountDeps(ctx, *id)
		if err != nil {
			return err
		}
		as, _, err := webhooks.New(d.Store, d.Clock).Attempts(ctx, *id, *ep, *limit, "")
		if err != nil {
			if apierr.KindOf(err) == apierr.NotFound {
				return fmt.Errorf("account %s has no webhook endpoint %s", *id, *ep)
			}
			return err
		}
		return e.print(as, func(w io.Writer) {
			if len(as) == 0 {
				fmt.Fprintln(w, "no delivery attempts")
				return
			}
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "AT\tEVENT\tTYPE\tATTEMPT\tSTATUS\tCODE\tMS\tNEXT\tERROR")
			for _, a := range as {
				code, next, why := "-", "-", ""
				if a.StatusCode != nil {
					code = fmt.Sprint(*a.StatusCode)
				}
				if a.NextAttemptAt != nil {
					next = a.NextAttemptAt.UTC().Format(time.RFC3339)
				}
				if a.Error != nil {
					why = *a.Error
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%d\t%s\t%s\n", a.CreatedAt.UTC().Format(time.RFC3339), a.EventID,
					a.EventType, a.Attempt, a.Status, code, a.LatencyMS, next, why)
			}
			tw.Flush()
		})
	}
}

func webhookEndpoints(fs *flag.FlagSet) action {
	id := fs.String("account", "", "account id (required)")
	return func(ctx context.Context, e *env) error {
		if err := required([2]string{"account", *id}); err != nil {
			return err
		}
		d, err := e.accountDeps(ctx, *id)
		if err != nil {
			return err
		}
		vs, _, err := webhooks.New(d.Store, d.Clock).List(ctx, *id, webhooks.MaxEndpoints, "")
		if err != nil {
			return err
		}
		return e.print(vs, func(w io.Writer) {
			if len(vs) == 0 {
				fmt.Fprintln(w, "no webhook endpoints")
				return
			}
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tURL\tEVENTS\tDISABLED\tREASON")
			for _, v := range vs {
				reason := ""
				if v.DisabledReason != nil {
					reason = *v.DisabledReason
				}
				fmt.Fprintf(tw, "%s\t%s\t%v\t%t\t%s\n", v.ID, v.URL, v.EnabledEvents, v.Disabled, reason)
			}
			tw.Flush()
		})
	}
}
