package links

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// Statistics are counted per UTC day of creation (keys.go: the counters a
// link's every change moves in its own transaction), so a range is read in
// whole days: created_from is taken back to the start of its day and
// created_to on to the end of its day, and the answer states the range it
// counted. A link active past its expiry counts as active until the expirer
// stores its expiry (within ExpireInterval).

// DefaultStatsRange is the range counted when created_from is not given.
const DefaultStatsRange = 30 * 24 * time.Hour

// MaxStatsDays is the longest range counted at once.
const MaxStatsDays = 366

// StatsRow is one status and currency: how many links and their amounts'
// sum, in minor units.
type StatsRow struct {
	Status   Status `json:"status"`
	Currency string `json:"currency"`
	Count    int64  `json:"count"`
	Amount   int64  `json:"amount"`
}

// Stats is the answer of GET /v1/payment-links/statistics.
type Stats struct {
	Object      string     `json:"object"`
	CreatedFrom time.Time  `json:"created_from"`
	CreatedTo   time.Time  `json:"created_to"`
	Data        []StatsRow `json:"data"`
}

// KindStats is the resource kind of statistics.
const KindStats = "payment_link_statistics"

// Statistics counts the account's links created in [from, to] (widened to
// whole UTC days; zero to: now; zero from: DefaultStatsRange before to) per
// status and currency, rows sorted by status then currency; statuses and
// currencies without links have no row. Errors: Invalid (a range longer
// than MaxStatsDays, named created_from), Unavailable, Internal.
func (s *Service) Statistics(ctx context.Context, accountID string, from, to time.Time) (*Stats, error) {
	if to.IsZero() {
		to = s.clock()
	}
	if from.IsZero() {
		from = to.Add(-DefaultStatsRange)
	}
	day := func(t time.Time) time.Time { return t.UTC().Truncate(24 * time.Hour) }
	first, last := day(from), day(to)
	if last.Sub(first) >= MaxStatsDays*24*time.Hour {
		return nil, apierr.Invalidf("created_from", "the range counts at most %d days", MaxStatsDays)
	}
	type bucket struct {
		status   Status
		currency string
	}
	rows := map[bucket]*StatsRow{}
	q := store.Query{Table: store.TablePayments, PK: statPK(accountID), From: first.Format(statDay) + "#",
		To: last.Format(statDay) + "#~", Limit: store.MaxQueryLimit}
	for {
		page, err := s.st.Query(ctx, q)
		if err != nil {
			return nil, apierr.Wrap("links.Statistics", apierr.Unavailable, err)
		}
		for _, it := range page.Items {
			// <day>#<status>#<currency>#<shard>#n|a
			parts := strings.Split(it.SK, "#")
			if len(parts) != 5 {
				continue
			}
			b := bucket{Status(parts[1]), parts[2]}
			row := rows[b]
			if row == nil {
				row = &StatsRow{Status: b.status, Currency: b.currency}
				rows[b] = row
			}
			if parts[4] == "n" {
				row.Count += it.N
			} else {
				row.Amount += it.N
			}
		}
		if page.Next == "" {
			break
		}
		q.Cursor = page.Next
	}
	out := &Stats{Object: KindStats, CreatedFrom: first, CreatedTo: last.Add(24*time.Hour - time.Second), Data: []StatsRow{}}
	for _, row := range rows {
		if row.Count != 0 {
			out.Data = append(out.Data, *row)
		}
	}
	order := map[Status]int{}
	for i, st := range Statuses {
		order[st] = i
	}
	sort.Slice(out.Data, func(i, j int) bool {
		a, b := out.Data[i], out.Data[j]
		if a.Status != b.Status {
			return order[a.Status] < order[b.Status]
		}
		return a.Currency < b.Currency
	})
	return out, nil
}
