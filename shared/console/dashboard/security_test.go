package dashboard_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/dashboard"
)

// TestViewersSeeOnlyThemselvesOnTheSecurityPage: the people list is every
// user of the account for owners and developers, the viewer alone for a
// viewer.
func TestViewersSeeOnlyThemselvesOnTheSecurityPage(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		owner, dev, viewer := e.user("", dashboard.Owner), e.user("", dashboard.Developer), e.user("", dashboard.Viewer)
		for _, who := range []string{owner, dev} {
			c := e.client()
			c.signIn(who)
			p := c.get("/dashboard/settings/security")
			require.Equal(t, 200, p.Status)
			for _, u := range []string{owner, dev, viewer} {
				assert.Contains(t, p.Body, u, "%s sees %s", who, u)
			}
		}
		c := e.client()
		c.signIn(viewer)
		p := c.get("/dashboard/settings/security")
		require.Equal(t, 200, p.Status)
		assert.Contains(t, p.Body, viewer)
		assert.NotContains(t, p.Body, owner)
		assert.NotContains(t, p.Body, dev)
	})
}
