package dashboard_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/dashboard"
	"github.com/paygate/paygate/shared/store"
)

// slowLimitReads is a store whose reads of the sign-in counters take long:
// a check that reads the counters before the password and adds after sees
// every parallel attempt under the limit.
type slowLimitReads struct{ store.Store }

func (s slowLimitReads) Get(ctx context.Context, k store.Key) (store.Item, error) {
	it, err := s.Store.Get(ctx, k)
	if strings.HasPrefix(k.PK, "dashlimit#") {
		time.Sleep(100 * time.Millisecond)
	}
	return it, err
}

// TestParallelWrongPasswordsGetAtMostTheLimitOfChecks: 12 parallel wrong
// passwords for one email (from as many addresses) get at most
// MaxAttemptsPerEmail checks; the others are locked out before theirs.
func TestParallelWrongPasswordsGetAtMostTheLimitOfChecks(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnvWith(t, b, func(s store.Store) store.Store { return slowLimitReads{s} })
		email := e.user("", dashboard.Owner)
		var (
			wg             sync.WaitGroup
			mu             sync.Mutex
			checked, moved int
		)
		for i := 0; i < 12; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				_, _, err := e.dash.SignIn(context.Background(), dashboard.SignInInput{Email: email, Password: "wrong guess",
					Address: "192.0.2." + string(rune('a'+i))})
				mu.Lock()
				defer mu.Unlock()
				switch err {
				case dashboard.ErrSignIn:
					checked++
				case dashboard.ErrLocked:
					moved++
				default:
					t.Errorf("attempt %d: %v", i, err)
				}
			}(i)
		}
		wg.Wait()
		assert.LessOrEqual(t, checked, dashboard.MaxAttemptsPerEmail, "checked attempts")
		assert.Equal(t, 12, checked+moved)
		_, _, err := e.dash.SignIn(context.Background(), dashboard.SignInInput{Email: email, Password: password, Address: "198.51.100.1"})
		assert.Equal(t, dashboard.ErrLocked, err, "the right password too, until the window ends")
	})
}

// TestSuccessfulSignInsGiveTheirAttemptBack: successes do not count
// against the limits.
func TestSuccessfulSignInsGiveTheirAttemptBack(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		email := e.user("", dashboard.Owner)
		for i := 0; i < dashboard.MaxAttemptsPerEmail+2; i++ {
			_, _, err := e.dash.SignIn(context.Background(), dashboard.SignInInput{Email: email, Password: password, Address: "198.51.100.2"})
			require.NoError(t, err, "sign-in %d", i)
		}
		for i := 0; i < dashboard.MaxAttemptsPerEmail; i++ {
			_, _, err := e.dash.SignIn(context.Background(), dashboard.SignInInput{Email: email, Password: "wrong guess", Address: "198.51.100.2"})
			require.Equal(t, dashboard.ErrSignIn, err, "failure %d", i)
		}
		_, _, err := e.dash.SignIn(context.Background(), dashboard.SignInInput{Email: email, Password: password, Address: "198.51.100.2"})
		assert.Equal(t, dashboard.ErrLocked, err)
	})
}
