package wiring

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// misnamed says why builder b, paired with function fn, breaks the naming
// rule: a top-level function of an area named
// Build<fn without its Function suffix>, so that a function's builder is
// found by its name and no builder hides in a closure or in the wiring.
func misnamed(fn string, b any) error {
	full := runtime.FuncForPC(reflect.ValueOf(b).Pointer()).Name()
	slash := strings.LastIndex(full, "/")
	dot := slash + strings.Index(full[slash:], ".")
	pkg, name := full[:dot], full[dot+1:]
	want := "Build" + strings.TrimSuffix(fn, "Function")
	const root = "github.com/paygate/paygate/shared/"
	inArea := false
	for _, layer := range []string{"pay/", "gate/", "console/"} {
		inArea = inArea || strings.HasPrefix(pkg, root+layer)
	}
	if fn == "HealthFunction" { // the one builder in the wiring (BuildHealth says why)
		inArea = pkg == root+"platform/wiring"
	}
	switch {
	case name != want:
		return fmt.Errorf("%s is built by %s, not %s", fn, full, want)
	case !inArea:
		return fmt.Errorf("%s is built in %s, not in an area", fn, pkg)
	}
	return nil
}

// TestBuildersAreNamedForTheirFunction: every builder in the tables is its
// area's Build<Function>.
func TestBuildersAreNamedForTheirFunction(t *testing.T) {
	n := 0
	check := func(fn string, b any) {
		n++
		assert.NoError(t, misnamed(fn, b))
	}
	for fn, b := range httpBuilders {
		check(fn, b)
	}
	for fn, b := range sqsBuilders {
		check(fn, b)
	}
	for fn, b := range taskBuilders {
		check(fn, b)
	}
	for fn, b := range streamBuilders {
		check(fn, b)
	}
	require.Len(t, Check(), 0)
	assert.Equal(t, len(httpBuilders)+len(sqsBuilders)+len(taskBuilders)+len(streamBuilders), n)

	// The rule catches a builder under another name, a closure and a
	// builder outside the areas.
	var closure app.HTTPBuilder = func(*app.Deps) (httpapi.Group, error) { return httpapi.Group{}, nil }
	assert.ErrorContains(t, misnamed("TransactionsFunction", httpBuilders["CheckoutModificationsFunction"]), "not BuildTransactions")
	assert.ErrorContains(t, misnamed("TransactionsFunction", closure), "not BuildTransactions")
	assert.ErrorContains(t, misnamed("NamedFunction", BuildNamed), "not in an area")
}

// BuildNamed is a well-named builder outside the areas, for the rule's own
// test.
func BuildNamed(*app.Deps) (httpapi.Group, error) { return httpapi.Group{}, nil }
