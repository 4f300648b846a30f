package samtemplate

import (
	"fmt"
	"strings"
	"testing"
)

// Table capacity (docs/deploy.md, "Table capacity"): the parameter
// TableCapacity keeps every table on demand by default and, when
// provisioned, gives each table a read and a write scalable target whose
// target-tracking policy holds it at 70% use (the utilisation the cost
// table's provisioned and reserved columns assume). A table added without
// them fails here with the YAML it is missing.

const (
	typeScalableTarget = "AWS::ApplicationAutoScaling::ScalableTarget"
	typeScalingPolicy  = "AWS::ApplicationAutoScaling::ScalingPolicy"
	provisionedCond    = "ProvisionedTables"
	// targetUtilization is the policies' TargetValue; infra/bench's
	// prices.json assumes the same figure (assumed.dynamodb_utilization).
	targetUtilization = "70"
)

// capacityDims are the two scaled dimensions of a table and the metric each
// one's policy tracks.
var capacityDims = []struct{ name, dimension, metric string }{
	{"Read", "dynamodb:table:ReadCapacityUnits", "DynamoDBReadCapacityUtilization"},
	{"Write", "dynamodb:table:WriteCapacityUnits", "DynamoDBWriteCapacityUtilization"},
}

func TestTableCapacityParameter(t *testing.T) {
	tpl := load(t)
	p := mapOf(tpl.Parameters["TableCapacity"])
	if got := Raw(p["AllowedValues"]); got != `["on-demand","provisioned"]` {
		t.Errorf("TableCapacity AllowedValues %s, want [on-demand, provisioned]", got)
	}
	if got := Raw(p["Default"]); got != "on-demand" {
		t.Errorf("TableCapacity Default %q, want on-demand (a stack deployed without it stays as it was)", got)
	}
	if got := Raw(tpl.Conditions[provisionedCond]); got != `!Equals [{"Ref":"TableCapacity"},"provisioned"]` {
		t.Errorf("Condition %s = %s, want !Equals [!Ref TableCapacity, provisioned]", provisionedCond, got)
	}
	lo, okLo := intOf(mapOf(tpl.Parameters["TableMinCapacity"])["Default"])
	hi, okHi := intOf(mapOf(tpl.Parameters["TableMaxCapacity"])["Default"])
	if !okLo || !okHi || lo < 1 || lo > hi {
		t.Errorf("TableMinCapacity %v and TableMaxCapacity %v: want numbers, 1 <= min <= max",
			mapOf(tpl.Parameters["TableMinCapacity"])["Default"], mapOf(tpl.Parameters["TableMaxCapacity"])["Default"])
	}
}

// Every table pays on demand unless TableCapacity is provisioned; then it
// starts at TableMinCapacity, and auto scaling moves its reads and writes
// between TableMinCapacity and TableMaxCapacity to keep 70% of them used.
func TestEveryTableScalesWhenProvisioned(t *testing.T) {
	tpl := load(t)
	tables := tpl.Tables()
	if len(tables) == 0 {
		t.Fatal("no tables")
	}
	isTable := map[string]bool{}
	for _, id := range tables {
		isTable[id] = true
		r, _ := tpl.Resource(id)
		p := r.Properties
		if got, want := Raw(p["BillingMode"]), `!If ["ProvisionedTables","PROVISIONED","PAY_PER_REQUEST"]`; got != want {
			t.Errorf("%s BillingMode %s, want !If [ProvisionedTables, PROVISIONED, PAY_PER_REQUEST]", id, got)
		}
		want := `!If ["ProvisionedTables",{"ReadCapacityUnits":{"Ref":"TableMinCapacity"},"WriteCapacityUnits":{"Ref":"TableMinCapacity"}},{"Ref":"AWS::NoValue"}]`
		if got := Raw(p["ProvisionedThroughput"]); got != want {
			t.Errorf("%s ProvisionedThroughput %s, want %s", id, got, want)
		}
		// An index has capacity of its own: it would need its own
		// throughput and scalable targets (dynamodb:index:...).
		if gsi := p["GlobalSecondaryIndexes"]; gsi != nil {
			t.Errorf("%s has GlobalSecondaryIndexes: give each its ProvisionedThroughput and scalable targets, and extend this test", id)
		}
	}

	// The scalable targets, by table and dimension.
	type key struct{ table, dimension string }
	targets := map[key]string{}
	dimOf := map[string]string{} // target id -> dimension
	for _, r := range tpl.ResourcesOfType(typeScalableTarget) {
		p := r.Properties
		if r.Condition != provisionedCond {
			t.Errorf("%s: Condition %q, want %s (on demand, a table has no capacity to scale)", r.LogicalID, r.Condition, provisionedCond)
		}
		table := strings.TrimSuffix(strings.TrimPrefix(Raw(p["ResourceId"]), "!Sub table/${"), "}")
		if !isTable[table] || Raw(p["ResourceId"]) != "!Sub table/${"+table+"}" {
			t.Errorf("%s: ResourceId %s, want !Sub table/${<a table of the template>}", r.LogicalID, Raw(p["ResourceId"]))
			continue
		}
		for what, want := range map[string]string{
			"ServiceNamespace": "dynamodb",
			"MinCapacity":      "!Ref TableMinCapacity",
			"MaxCapacity":      "!Ref TableMaxCapacity",
			// DynamoDB's scalable targets use Application Auto Scaling's
			// service-linked role, created on first use.
			"RoleARN": "",
		} {
			if got := Raw(p[what]); got != want {
				t.Errorf("%s: %s %q, want %q", r.LogicalID, what, got, want)
			}
		}
		dim := Raw(p["ScalableDimension"])
		k := key{table, dim}
		if prev, dup := targets[k]; dup {
			t.Errorf("%s and %s both scale %s %s", prev, r.LogicalID, table, dim)
		}
		targets[k] = r.LogicalID
		dimOf[r.LogicalID] = dim
	}

	// The policies, by target: target tracking at 70% of the target's own
	// dimension.
	policies := map[string][]string{}
	for _, r := range tpl.ResourcesOfType(typeScalingPolicy) {
		p := r.Properties
		if r.Condition != provisionedCond {
			t.Errorf("%s: Condition %q, want %s", r.LogicalID, r.Condition, provisionedCond)
		}
		target := RefTarget(p["ScalingTargetId"])
		dim, ok := dimOf[target]
		if !ok {
			t.Errorf("%s: ScalingTargetId %s is not a scalable target of the template", r.LogicalID, Raw(p["ScalingTargetId"]))
			continue
		}
		cfg := mapOf(p["TargetTrackingScalingPolicyConfiguration"])
		metric := Raw(mapOf(cfg["PredefinedMetricSpecification"])["PredefinedMetricType"])
		for _, d := range capacityDims {
			if d.dimension == dim && metric != d.metric {
				t.Errorf("%s tracks %q for %s, want %s", r.LogicalID, metric, dim, d.metric)
			}
		}
		if Raw(p["PolicyType"]) != "TargetTrackingScaling" || Raw(cfg["TargetValue"]) != targetUtilization {
			t.Errorf("%s: PolicyType %s, TargetValue %s; want TargetTrackingScaling at %s", r.LogicalID,
				Raw(p["PolicyType"]), Raw(cfg["TargetValue"]), targetUtilization)
		}
		policies[target] = append(policies[target], r.LogicalID)
	}

	for _, table := range tables {
		for _, d := range capacityDims {
			target, ok := targets[key{table, d.dimension}]
			if !ok {
				t.Errorf("%s has no scalable target for %s; add to the table capacity section:\n%s", table, d.dimension, scalingYAML(table, d.name, d.dimension, d.metric))
				continue
			}
			if n := len(policies[target]); n != 1 {
				t.Errorf("%s (%s %s) has %d scaling policies %v, want one", target, table, d.dimension, n, policies[target])
			}
		}
	}
	if want := 2 * len(tables); len(targets) != want {
		t.Errorf("%d scalable targets, want %d (a read and a write per table)", len(targets), want)
	}
}

// scalingYAML is a table's scalable target and policy for one dimension.
func scalingYAML(table, dim, dimension, metric string) string {
	return fmt.Sprintf(`
  %[1]s%[2]sTarget:
    Type: AWS::ApplicationAutoScaling::ScalableTarget
    Condition: ProvisionedTables
    Properties:
      ServiceNamespace: dynamodb
      ResourceId: !Sub table/${%[1]s}
      ScalableDimension: %[3]s
      MinCapacity: !Ref TableMinCapacity
      MaxCapacity: !Ref TableMaxCapacity

  %[1]s%[2]sPolicy:
    Type: AWS::ApplicationAutoScaling::ScalingPolicy
    Condition: ProvisionedTables
    Properties:
      PolicyName: %[4]s-capacity-utilization
      PolicyType: TargetTrackingScaling
      ScalingTargetId: !Ref %[1]s%[2]sTarget
      TargetTrackingScalingPolicyConfiguration:
        TargetValue: 70
        PredefinedMetricSpecification: {PredefinedMetricType: %[5]s}`, table, dim, dimension, strings.ToLower(dim), metric)
}
