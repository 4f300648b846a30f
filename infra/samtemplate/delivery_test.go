package samtemplate

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The delivery rules (gradual rollout, tracing, logs, alarms): what every
// function must have, and what a money-path function (registry.Group.
// MoneyPath) must have on top. A function added without them fails here with
// the YAML it is missing.

const alarmActions = `!If ["HasAlarmTopic",[{"Ref":"AlarmTopicArn"}],{"Ref":"AWS::NoValue"}]`

// base is a function's logical id without "Function": its alarms' prefix.
func base(fn string) string { return strings.TrimSuffix(fn, "Function") }

// Every function is published behind an alias, traced by X-Ray, logs to a
// log group with a retention, and has an alarm on its errors and throttles.
func TestEveryFunctionIsAliasedTracedAndLogged(t *testing.T) {
	tpl := load(t)
	for _, f := range tpl.Functions() {
		if alias := Raw(f.Properties["AutoPublishAlias"]); alias == "" {
			t.Errorf("%s: no AutoPublishAlias (Globals sets one; do not unset it)", f.LogicalID)
		}
		if tr := Raw(f.Properties["Tracing"]); tr != "Active" {
			t.Errorf("%s: Tracing %q, want Active", f.LogicalID, tr)
		}
		checkLogGroup(t, tpl, f)
		checkErrorsAlarm(t, tpl, f)
	}
}

// checkLogGroup: the function logs (LoggingConfig.LogGroup) to a log group
// of the template whose retention is the per-environment parameter, with
// Lambda's own lines at the per-environment level.
func checkLogGroup(t *testing.T, tpl *Template, f Function) {
	t.Helper()
	lc := mapOf(f.Properties["LoggingConfig"])
	// Lambda's own lines follow the per-environment parameter (about 900
	// bytes per invocation: the cost table prices it).
	if got := Raw(lc["SystemLogLevel"]); got != "!Ref SystemLogLevel" {
		t.Errorf("%s: LoggingConfig.SystemLogLevel %q, want !Ref SystemLogLevel", f.LogicalID, got)
	}
	lg := RefTarget(lc["LogGroup"])
	r, ok := tpl.Resource(lg)
	if !ok || r.Type != "AWS::Logs::LogGroup" {
		t.Errorf("%s: LoggingConfig.LogGroup %q is not a log group of the template", f.LogicalID, lg)
		return
	}
	if got := Raw(r.Properties["RetentionInDays"]); got != "!Ref LogRetentionDays" {
		t.Errorf("%s: log group %s RetentionInDays %q, want !Ref LogRetentionDays", f.LogicalID, lg, got)
	}
}

// checkErrorsAlarm: <Name>ErrorsAlarm fires on errors + throttles of this
// function and notifies the alarm topic.
func checkErrorsAlarm(t *testing.T, tpl *Template, f Function) {
	t.Helper()
	id := base(f.LogicalID) + "ErrorsAlarm"
	r, ok := tpl.Resource(id)
	if !ok || r.Type != TypeAlarm {
		t.Errorf("%s has no %s; add after its block:\n%s", f.LogicalID, id, errorsAlarmYAML(f))
		return
	}
	var measured []string
	for _, m := range asList(r.Properties["Metrics"]) {
		stat := mapOf(mapOf(m)["MetricStat"])
		metric := mapOf(stat["Metric"])
		if Raw(metric["Namespace"]) != "AWS/Lambda" || !dimensionIs(metric["Dimensions"], f.LogicalID) {
			continue
		}
		measured = append(measured, Raw(metric["MetricName"]))
	}
	slices.Sort(measured)
	if !slices.Equal(measured, []string{"Errors", "Throttles"}) {
		t.Errorf("%s: measures %v of %s, want Errors and Throttles (FunctionName: !Ref %s)", id, measured, f.LogicalID, f.LogicalID)
	}
	checkFires(t, r)
}

// checkFires: the alarm fires on any breach and notifies the topic.
func checkFires(t *testing.T, r Resource) {
	t.Helper()
	p := r.Properties
	if Raw(p["ComparisonOperator"]) != "GreaterThanThreshold" || Raw(p["TreatMissingData"]) != "notBreaching" {
		t.Errorf("%s: ComparisonOperator %s, TreatMissingData %s; want GreaterThanThreshold, notBreaching",
			r.LogicalID, Raw(p["ComparisonOperator"]), Raw(p["TreatMissingData"]))
	}
	if got := Raw(p["AlarmActions"]); got != alarmActions {
		t.Errorf("%s: AlarmActions %s, want the alarm topic (%s)", r.LogicalID, got, alarmActions)
	}
}

func dimensionIs(dims any, fn string) bool {
	l := asList(dims)
	return len(l) == 1 && Raw(mapOf(l[0])["Name"]) == "FunctionName" && RefTarget(mapOf(l[0])["Value"]) == fn
}

// Every money-path function shifts traffic through CodeDeploy at the
// environment's pace, rolled back by its own errors and p99 latency alarms
// and the API's 5xx alarm; no other function has a deployment preference,
// so the declaration's MoneyPath is the one place that says which.
func TestMoneyPathFunctionsRollOutGradually(t *testing.T) {
	tpl := load(t)
	groups := declared()
	money := 0
	for _, f := range tpl.Functions() {
		pref := mapOf(f.Properties["DeploymentPreference"])
		g, ok := groups[f.LogicalID]
		if !ok {
			continue // TestFunctionsAreTheDeclaredGroups reports it
		}
		if !g.MoneyPath {
			if len(pref) > 0 {
				t.Errorf("%s has a DeploymentPreference but its declaration is not MoneyPath", f.LogicalID)
			}
			continue
		}
		money++
		if len(pref) == 0 {
			t.Errorf("%s is MoneyPath and has no DeploymentPreference; add below its CodeUri:\n%s\nand after its block:\n%s",
				f.LogicalID, preferenceYAML(f), latencyAlarmYAML(f))
			continue
		}
		if got := Raw(pref["Type"]); got != "!Ref DeploymentType" {
			t.Errorf("%s: DeploymentPreference.Type %q, want !Ref DeploymentType (per environment)", f.LogicalID, got)
		}
		var alarms []string
		for _, a := range asList(pref["Alarms"]) {
			id := RefTarget(a)
			if r, ok := tpl.Resource(id); !ok || r.Type != TypeAlarm {
				t.Errorf("%s: deployment alarm %s is not an alarm of the template", f.LogicalID, Raw(a))
			}
			alarms = append(alarms, id)
		}
		for _, want := range []string{base(f.LogicalID) + "ErrorsAlarm", base(f.LogicalID) + "LatencyAlarm", "ApiServerErrorsAlarm"} {
			if !slices.Contains(alarms, want) {
				t.Errorf("%s: deployment alarms %v lack %s", f.LogicalID, alarms, want)
			}
		}
		checkLatencyAlarm(t, tpl, f)
	}
	if money == 0 {
		t.Error("no declaration is MoneyPath")
	}
	api, ok := tpl.Resource("ApiServerErrorsAlarm")
	if !ok || Raw(api.Properties["MetricName"]) != "5xx" || RefTarget(mapOf(asList(api.Properties["Dimensions"])[0])["Value"]) != "HttpApi" {
		t.Errorf("ApiServerErrorsAlarm must count the HttpApi's 5xx: %+v", api.Properties)
	} else {
		checkFires(t, api)
	}
	if got := Raw(tpl.Parameters["DeploymentType"]); !strings.Contains(got, `"Default":"AllAtOnce"`) {
		t.Errorf("DeploymentType parameter %s, want a default of AllAtOnce", got)
	}
}

func checkLatencyAlarm(t *testing.T, tpl *Template, f Function) {
	t.Helper()
	id := base(f.LogicalID) + "LatencyAlarm"
	r, ok := tpl.Resource(id)
	if !ok {
		t.Errorf("%s has no %s; add after its block:\n%s", f.LogicalID, id, latencyAlarmYAML(f))
		return
	}
	p := r.Properties
	if Raw(p["MetricName"]) != "Duration" || Raw(p["ExtendedStatistic"]) != "p99" || !dimensionIs(p["Dimensions"], f.LogicalID) ||
		Raw(p["Threshold"]) != "!Ref MoneyRouteP99Millis" {
		t.Errorf("%s: want the p99 Duration of %s over !Ref MoneyRouteP99Millis, got %s %s %s", id, f.LogicalID,
			Raw(p["MetricName"]), Raw(p["ExtendedStatistic"]), Raw(p["Threshold"]))
	}
	checkFires(t, r)
}

// Every alarm of the stack (DLQ depth included) notifies the alarm topic.
func TestEveryAlarmNotifiesTheTopic(t *testing.T) {
	alarms := load(t).ResourcesOfType(TypeAlarm)
	if len(alarms) == 0 {
		t.Fatal("no alarms")
	}
	for _, r := range alarms {
		if got := Raw(r.Properties["AlarmActions"]); got != alarmActions {
			t.Errorf("%s: AlarmActions %s, want %s", r.LogicalID, got, alarmActions)
		}
		if name := Raw(r.Properties["AlarmName"]); !strings.HasPrefix(name, "!Sub paygate-${Environment}-") {
			t.Errorf("%s: AlarmName %q does not carry the environment", r.LogicalID, name)
		}
	}
}

// samconfig.toml sets the rollout and the log retention per environment:
// all at once in dev, a canary in staging and prod.
func TestEnvironmentsSetRolloutAndRetention(t *testing.T) {
	data, err := os.ReadFile("../../samconfig.toml")
	if err != nil {
		t.Fatal(err)
	}
	tpl := load(t)
	overrides := map[string]map[string]string{}
	env := ""
	section := regexp.MustCompile(`^\[(\w+)\.deploy\.parameters\]$`)
	for _, line := range strings.Split(string(data), "\n") {
		if m := section.FindStringSubmatch(line); m != nil {
			env = m[1]
			continue
		}
		if v, ok := strings.CutPrefix(line, "parameter_overrides = "); ok && env != "" {
			overrides[env] = map[string]string{}
			for _, kv := range strings.Fields(strings.Trim(v, `"`)) {
				k, val, _ := strings.Cut(kv, "=")
				overrides[env][k] = val
			}
		}
	}
	for env, wantType := range map[string]string{"dev": "AllAtOnce", "staging": "Canary10Percent5Minutes", "prod": "Canary10Percent5Minutes"} {
		o := overrides[env]
		if o["Environment"] != env || o["DeploymentType"] != wantType {
			t.Errorf("[%s.deploy.parameters] overrides %v, want Environment=%s DeploymentType=%s", env, o, env, wantType)
		}
		allowed := Raw(mapOf(tpl.Parameters["LogRetentionDays"])["AllowedValues"])
		if o["LogRetentionDays"] == "" || !strings.Contains(","+strings.Trim(allowed, "[]")+",", ","+o["LogRetentionDays"]+",") {
			t.Errorf("%s: LogRetentionDays %q, want one of %s", env, o["LogRetentionDays"], allowed)
		}
	}
}

// The dashboard's body is JSON once its ${...} are substituted, and shows
// the business metrics the services write (shared/platform/metrics' namespace).
func TestDashboardIsJSON(t *testing.T) {
	r, ok := load(t).Resource("Dashboard")
	if !ok || r.Type != "AWS::CloudWatch::Dashboard" {
		t.Fatal("no Dashboard")
	}
	body, ok := mapOf(r.Properties["DashboardBody"])["Fn::Sub"].(string)
	if !ok {
		t.Fatalf("DashboardBody is not a !Sub string: %s", Raw(r.Properties["DashboardBody"]))
	}
	sub := regexp.MustCompile(`\$\{[A-Za-z:]+\}`).ReplaceAllString(body, "x")
	var d struct {
		Widgets []map[string]any `json:"widgets"`
	}
	if err := json.Unmarshal([]byte(sub), &d); err != nil || len(d.Widgets) == 0 {
		t.Fatalf("DashboardBody: %v (%d widgets)", err, len(d.Widgets))
	}
	if !strings.Contains(body, "{paygate,Environment}") {
		t.Error("the dashboard does not show the business metrics (namespace paygate)")
	}
}

func errorsAlarmYAML(f Function) string {
	return fmt.Sprintf(`  %[1]sErrorsAlarm:
    Type: AWS::CloudWatch::Alarm
    Properties:
      AlarmName: !Sub paygate-${Environment}-<name>-errors
      Metrics:
        - {Id: errors, ReturnData: false, MetricStat: {Period: 60, Stat: Sum, Metric: {Namespace: AWS/Lambda, MetricName: Errors, Dimensions: [{Name: FunctionName, Value: !Ref %[2]s}]}}}
        - {Id: throttles, ReturnData: false, MetricStat: {Period: 60, Stat: Sum, Metric: {Namespace: AWS/Lambda, MetricName: Throttles, Dimensions: [{Name: FunctionName, Value: !Ref %[2]s}]}}}
        - {Id: total, Expression: errors + throttles, Label: errors and throttles}
      EvaluationPeriods: 1
      Threshold: 0
      ComparisonOperator: GreaterThanThreshold
      TreatMissingData: notBreaching
      AlarmActions: !If [HasAlarmTopic, [!Ref AlarmTopicArn], !Ref AWS::NoValue]`, base(f.LogicalID), f.LogicalID)
}

func preferenceYAML(f Function) string {
	return fmt.Sprintf(`      DeploymentPreference:
        Type: !Ref DeploymentType
        Alarms: [!Ref %[1]sErrorsAlarm, !Ref %[1]sLatencyAlarm, !Ref ApiServerErrorsAlarm]`, base(f.LogicalID))
}

func latencyAlarmYAML(f Function) string {
	return fmt.Sprintf(`  %[1]sLatencyAlarm:
    Type: AWS::CloudWatch::Alarm
    Properties:
      AlarmName: !Sub paygate-${Environment}-<name>-p99
      Namespace: AWS/Lambda
      MetricName: Duration
      Dimensions: [{Name: FunctionName, Value: !Ref %[2]s}]
      ExtendedStatistic: p99
      Period: 60
      EvaluationPeriods: 5
      DatapointsToAlarm: 3
      Threshold: !Ref MoneyRouteP99Millis
      ComparisonOperator: GreaterThanThreshold
      TreatMissingData: notBreaching
      AlarmActions: !If [HasAlarmTopic, [!Ref AlarmTopicArn], !Ref AWS::NoValue]`, base(f.LogicalID), f.LogicalID)
}
