package crashtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/queue/boltqueue"
)

// Outside is, in a crash test's server, the party outside the service that
// a consumer calls (a payout processor, a bank): the server's wrapper of
// it calls Answered after each answer, which notes the call in a file of
// $DATA_DIR (one line per call, so the test counts them across processes)
// and, when the test asks for the crash, kills the process before the
// consumer can record the answer.
type Outside struct {
	calls string
	crash bool
}

// OutsideFromEnv notes calls in $DATA_DIR/<callsFile> and crashes after
// each answer when the environment variable crashVar is "1".
func OutsideFromEnv(callsFile, crashVar string) Outside {
	return Outside{calls: filepath.Join(os.Getenv("DATA_DIR"), callsFile), crash: os.Getenv(crashVar) == "1"}
}

// Answered notes a call about id and, in a crashing run, dies at once.
func (o Outside) Answered(id string) {
	if f, err := os.OpenFile(o.calls, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
		fmt.Fprintln(f, id)
		f.Sync()
		f.Close()
	}
	if o.crash {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		time.Sleep(time.Minute) // SIGKILL is asynchronous: never return the answer
	}
}

// Consume runs handler on the queue's messages in the background, as make
// run's poller does, after releasing the messages a killed run had
// received (as the local gateway does at start).
func Consume(ctx context.Context, d *app.Deps, queue string, handler app.SQSHandler) error {
	if bq, ok := d.Queue.(*boltqueue.Queue); ok {
		if _, err := bq.ReleaseReceived(ctx, queue); err != nil {
			return err
		}
	}
	poller := &app.Poller{Queue: d.Queue, Name: queue, Handler: handler, Wait: 100 * time.Millisecond}
	go poller.Run(ctx)
	return nil
}
