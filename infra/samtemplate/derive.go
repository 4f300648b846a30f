package samtemplate

import (
	"sort"
	"strings"

	"github.com/paygate/paygate/shared/platform/registry"
)

// What template.yaml must say, derived from the registry's declarations. The
// template is written by hand (SAM reads it, reviewers diff it); this
// package's tests hold it to these, and nothing at run time needs them.

// The actions of the explicit statements that stand for SAM's policy
// templates, each on the one queue's or stream's ARN (SQSSendMessagePolicy,
// SQSPollerPolicy and DynamoDBStreamReadPolicy are not used: the last grants
// ListStreams on every stream of the table, and the SAM events whose
// mappings they serve attach managed policies reading every queue or stream).
var (
	// QueueSendActions: what a producer calls (shared/aws/sqsqueue).
	QueueSendActions = []string{"sqs:SendMessage"}
	// QueuePollActions: what the event source mapping calls (receive,
	// delete, attributes) and the consumer's backoff (change visibility).
	QueuePollActions = []string{"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility", "sqs:GetQueueAttributes"}
	// StreamReadActions: what the event source mapping of a DynamoDB stream
	// calls, on the stream's ARN.
	StreamReadActions = []string{"dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:ListStreams"}
)

// QueueActions are the actions of a queue grant.
func QueueActions(a registry.QueueAccess) []string {
	if a == registry.Poll {
		return QueuePollActions
	}
	return QueueSendActions
}

// TableActions is the DynamoDB action list of a grant, as IAM spells it.
func TableActions(t registry.Table) []string {
	out := make([]string, len(t.Actions))
	for i, a := range t.Actions {
		out[i] = "dynamodb:" + a
	}
	return out
}

// SortedFunctions is the logical ids of groups, sorted.
func SortedFunctions(groups []registry.Group) []string {
	out := make([]string, 0, len(groups))
	for _, g := range groups {
		out = append(out, g.Function)
	}
	sort.Strings(out)
	return out
}

// TableID is the template's logical id of a store table: events ->
// EventsTable.
func TableID(logical string) string {
	if logical == "" {
		return "Table"
	}
	return strings.ToUpper(logical[:1]) + logical[1:] + "Table"
}

// StreamDLQ is the logical id of a stream consumer's dead-letter queue, the
// OnFailure destination of its event source mapping: WebhookPublisherFunction
// -> WebhookPublisherDLQ. "" for a group of another kind.
func StreamDLQ(g registry.Group) string {
	if g.Kind() != "stream" {
		return ""
	}
	return strings.TrimSuffix(g.Function, "Function") + "DLQ"
}

// StreamGrants are the grants a stream consumer's template block carries
// after its declared ones (Tables, Queues, Grants), least privilege: read on
// its table's stream (the stream's ARN, !GetAtt <Table>.StreamArn), and send
// on its DLQ, where the event source mapping puts what it gives up on. Nil
// for other kinds.
func StreamGrants(g registry.Group) []registry.Grant {
	if g.Kind() != "stream" {
		return nil
	}
	return []registry.Grant{
		{Policy: "Statement", Actions: StreamReadActions, Resources: []string{TableID(g.Streams)}},
		{Policy: "Statement", Actions: QueueSendActions, Resources: []string{StreamDLQ(g)}},
	}
}

// Match resolves a request the way an HTTP API chooses among route keys
// (key -> function): the most specific route wins, that is a route without a
// greedy variable before one with, literal segments before variables from
// left to right, a longer greedy prefix before a shorter one, an explicit
// method before ANY; $default only when nothing else matches. It returns the
// function and the key that matched, or ok false when no key matches.
func Match(keys map[string]string, method, path string) (fn, key string, ok bool) {
	req := segments(path)
	var best []string
	var bestKey, bestMethod string
	for k := range keys {
		m, p, found := strings.Cut(k, " ")
		if !found || (m != "ANY" && m != method) || !matches(segments(p), req) {
			continue
		}
		if best == nil || moreSpecific(m, segments(p), bestMethod, best) {
			best, bestKey, bestMethod = segments(p), k, m
		}
	}
	if best == nil {
		fn, ok = keys[registry.DefaultRoute]
		return fn, registry.DefaultRoute, ok
	}
	return keys[bestKey], bestKey, true
}

func segments(path string) []string { return strings.Split(strings.Trim(path, "/"), "/") }

func isParam(seg string) bool { return strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") }

func isGreedy(seg string) bool { return strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "+}") }

func matches(pattern, req []string) bool {
	for i, seg := range pattern {
		if isGreedy(seg) {
			return i < len(req) && req[i] != "" // one or more segments
		}
		if i >= len(req) || req[i] == "" || !isParam(seg) && seg != req[i] {
			return false
		}
	}
	return len(pattern) == len(req)
}

func moreSpecific(method string, p []string, bestMethod string, best []string) bool {
	pg, bg := isGreedy(p[len(p)-1]), isGreedy(best[len(best)-1])
	if pg != bg {
		return !pg
	}
	if pg && len(p) != len(best) {
		return len(p) > len(best)
	}
	for i := 0; i < len(p) && i < len(best); i++ {
		if isParam(p[i]) != isParam(best[i]) {
			return !isParam(p[i])
		}
	}
	return method != "ANY" && bestMethod == "ANY"
}
