package dynamostore

import (
	"regexp"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/paygate/paygate/shared/store"
)

// plan is one op turned into DynamoDB expressions.
type plan struct {
	op     store.Op
	table  string // physical
	update string // UpdateItem expression; empty for deletes and checks
	cond   string // ConditionExpression; may be empty
	values map[string]types.AttributeValue
}

// Placeholders shared by every expression.
var names = map[string]string{
	"#pk": attrPK, "#sk": attrSK, "#d": attrData, "#z": attrPacked, "#n": attrN, "#v": attrV, "#t": attrTTL,
	"#w": attrWrite,
}

// Condition building blocks. An expired item (ttl <= now) counts as absent.
const (
	notExpired  = "(attribute_not_exists(#t) OR #t > :now)"
	absent      = "(attribute_not_exists(#pk) OR #t <= :now)"
	exists      = "(attribute_exists(#pk) AND " + notExpired + ")"
	liveOrNone  = "(attribute_not_exists(#pk) OR " + notExpired + ")"
	bumpVersion = "#v = if_not_exists(#v, :zero) + :one"
)

// newPlan builds the expressions of op at now. An OpAdd also requires the
// item not to be expired, so that an expired counter is never added to; Write
// then rewrites it with resetPlan.
func newPlan(op store.Op, table string, now time.Time) plan {
	p := plan{op: op, table: table, values: map[string]types.AttributeValue{
		":now": numAttr(now.Unix()), ":zero": numAttr(0), ":one": numAttr(1),
	}}
	var conds []string
	switch op.Cond.Kind {
	case store.CondAbsent:
		conds = append(conds, absent)
	case store.CondExists:
		conds = append(conds, exists)
	case store.CondVersion:
		conds = append(conds, exists, "#v = :ver")
		p.values[":ver"] = numAttr(op.Cond.Version)
	}
	switch op.Kind {
	case store.OpPut:
		p.values[":num"] = numAttr(op.Item.N)
		p.update = setBody([]string{bumpVersion, "#n = :num"}, op.Item, p.values)
	case store.OpAdd:
		conds = append(conds, liveOrNone)
		conds = append(conds, nonNegative(op)...)
		conds = append(conds, bound(op, p.values)...)
		p.values[":dlt"] = numAttr(op.Delta)
		p.values[":mdlt"] = numAttr(-op.Delta)
		sets := []string{bumpVersion, "#n = if_not_exists(#n, :zero) + :dlt"}
		if op.Item.Data != nil {
			p.update = setBody(sets, op.Item, p.values)
		} else {
			p.update = "SET " + strings.Join(sets, ", ")
		}
	}
	p.cond = strings.Join(conds, " AND ")
	return p
}

// nonNegative is the condition keeping N + Delta >= 0; an absent counter is 0.
func nonNegative(op store.Op) []string {
	switch {
	case !op.NonNegative:
		return nil
	case op.Delta < 0:
		return []string{"#n >= :mdlt"}
	default:
		return []string{"(attribute_not_exists(#n) OR #n >= :mdlt)"}
	}
}

// bound is the condition keeping N + Delta within the op's bound (see
// store.Op.Max): DynamoDB numbers have 38 digits, so without it an add would
// go past int64 and leave an item the port cannot read. An absent counter is
// 0, which passes only when 0 is within the limit.
func bound(op store.Op, values map[string]types.AttributeValue) []string {
	limit, upper, ok := op.AddLimit()
	if !ok {
		return nil
	}
	values[":lim"] = numAttr(limit)
	cmp, absentOK := "#n <= :lim", limit >= 0
	if !upper {
		cmp, absentOK = "#n >= :lim", limit <= 0
	}
	if absentOK {
		return []string{"(attribute_not_exists(#n) OR " + cmp + ")"}
	}
	return []string{cmp}
}

// canReset reports whether an OpAdd that failed over old (expired) may be
// rewritten as if the item were absent, which is how the port reads an
// expired item; the caller has judged the op over an absent item already.
func canReset(op store.Op, old *store.Item, now time.Time) bool {
	return op.Kind == store.OpAdd && old != nil && old.Expired(now)
}

// resetPlan recreates an expired counter as if absent: N = Delta, the body
// and expiry from the op (none without Data), the version continued; it
// applies only if the item is still the expired one that was read.
func resetPlan(p plan, old *store.Item) plan {
	op := p.op
	r := plan{op: op, table: p.table, cond: "#v = :oldv", values: map[string]types.AttributeValue{
		":oldv": numAttr(old.Version), ":newv": numAttr(old.Version + 1), ":dlt": numAttr(op.Delta),
	}}
	r.update = setBody([]string{"#v = :newv", "#n = :dlt"}, op.Item, r.values)
	return r
}

// setBody completes an update that writes the item's body: Data (plain in
// data, or packed in dz: pack.go; the other one removed) and the expiry are
// set, or removed when empty.
func setBody(sets []string, it store.Item, values map[string]types.AttributeValue) string {
	var removes []string
	if packed, ok := pack(it.Data); ok {
		sets = append(sets, "#z = :dz")
		values[":dz"] = &types.AttributeValueMemberB{Value: packed}
		removes = append(removes, "#d")
	} else if len(it.Data) > 0 {
		sets = append(sets, "#d = :data")
		values[":data"] = &types.AttributeValueMemberB{Value: it.Data}
		removes = append(removes, "#z")
	} else {
		removes = append(removes, "#d", "#z")
	}
	if !it.ExpiresAt.IsZero() {
		sets = append(sets, "#t = :ttl")
		values[":ttl"] = numAttr(expirySeconds(it.ExpiresAt))
	} else {
		removes = append(removes, "#t")
	}
	expr := "SET " + strings.Join(sets, ", ")
	if len(removes) > 0 {
		expr += " REMOVE " + strings.Join(removes, ", ")
	}
	return expr
}

var placeholder = regexp.MustCompile(`[#:][a-z]+`)

// used returns the names and values the expressions reference: DynamoDB
// rejects unused ones.
func used(values map[string]types.AttributeValue, exprs ...string) (map[string]string, map[string]types.AttributeValue) {
	n := map[string]string{}
	v := map[string]types.AttributeValue{}
	for _, e := range exprs {
		for _, ph := range placeholder.FindAllString(e, -1) {
			if ph[0] == '#' {
				n[ph] = names[ph]
			} else {
				v[ph] = values[ph]
			}
		}
	}
	if len(v) == 0 {
		v = nil
	}
	if len(n) == 0 {
		n = nil
	}
	return n, v
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
