package queuetest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/queue"
)

func testSendReceiveDelete(t *testing.T, q queue.Queue, name string) {
	id := send(t, q, name, `{"order":"ord_1","amount":1250}`, 0)
	m := receiveOne(t, q, name, 30*time.Second, 2*time.Second)
	if m.ID != id || string(m.Body) != `{"order":"ord_1","amount":1250}` || m.ReceiveCount != 1 || m.Receipt == "" {
		t.Fatalf("got %+v, want id %s, the body, count 1 and a receipt", m, id)
	}
	if err := q.Delete(ctx(t), name, m.Receipt); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	receiveNone(t, q, name, 0)
}

// jsonBodies are bodies as producers make them: json.Marshal output carrying
// arbitrary bytes (base64), control characters (escaped) and non-ASCII text,
// plus hand-written JSON with raw whitespace and multi-byte characters.
func jsonBodies(t *testing.T) []string {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	var ctl strings.Builder
	for r := rune(0); r < 0x20; r++ {
		ctl.WriteRune(r)
	}
	marshalled, err := json.Marshal(map[string]any{
		"bytes":   all,
		"control": ctl.String() + "\u2028\u2029\x7f",
		"text":    "é 中文 😀 <b>&amp;</b> \"quoted\" back\\slash",
		"amount":  int64(9007199254740993),
	})
	if err != nil {
		t.Fatal(err)
	}
	big, err := json.Marshal(map[string]string{"pad": strings.Repeat("0123456789abcdef€", 11000)}) // ~200 KiB
	if err != nil {
		t.Fatal(err)
	}
	return []string{
		string(marshalled),
		"{\r\n\t\"k\": \"é中😀\",\n  \"n\": [1, 2.5e3, null, true]\r\n}\n",
		`"just a string"`,
		string(big),
	}
}

func testBodyRoundtrip(t *testing.T, q queue.Queue, name string) {
	bodies := jsonBodies(t)
	want := map[string]string{}
	for _, b := range bodies {
		want[send(t, q, name, b, 0)] = b
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(want) > 0 && time.Now().Before(deadline) {
		msgs, err := q.Receive(ctx(t), name, 10, 30*time.Second, time.Second)
		if err != nil {
			t.Fatalf("Receive: %v", err)
		}
		for _, m := range msgs {
			b, ok := want[m.ID]
			if !ok {
				t.Fatalf("unexpected message %s", m.ID)
			}
			if !bytes.Equal(m.Body, []byte(b)) {
				t.Fatalf("body of %s changed: got %d bytes %.80q, want %d bytes %.80q", m.ID, len(m.Body), m.Body, len(b), b)
			}
			delete(want, m.ID)
		}
	}
	if len(want) > 0 {
		t.Fatalf("%d messages never received", len(want))
	}
}

func testInvalid(t *testing.T, q queue.Queue, name string) {
	c := ctx(t)
	_, err := q.Send(c, name, nil, 0)
	wantErr(t, "Send empty body", err, queue.ErrInvalid)
	_, err = q.Send(c, name, []byte("{\"a\":\"\xff\"}"), 0)
	wantErr(t, "Send non-UTF-8 body", err, queue.ErrInvalid)
	_, err = q.Send(c, name, []byte("{\"a\":\"\x00\"}"), 0)
	wantErr(t, "Send body with NUL", err, queue.ErrInvalid)
	_, err = q.Send(c, name, bytes.Repeat([]byte("a"), 256<<10+1), 0)
	wantErr(t, "Send body over 256 KiB", err, queue.ErrInvalid)
	_, err = q.Send(c, name, []byte("{}"), 16*time.Minute)
	wantErr(t, "Send delay over 15 min", err, queue.ErrInvalid)
	_, err = q.Send(c, name, []byte("{}"), -time.Second)
	wantErr(t, "Send negative delay", err, queue.ErrInvalid)
	_, err = q.Send(c, "", []byte("{}"), 0)
	wantErr(t, "Send to empty name", err, queue.ErrInvalid)
	for _, max := range []int{0, 11} {
		_, err = q.Receive(c, name, max, time.Second, 0)
		wantErr(t, "Receive max out of range", err, queue.ErrInvalid)
	}
	_, err = q.Receive(c, name, 1, time.Second, 21*time.Second)
	wantErr(t, "Receive wait over 20 s", err, queue.ErrInvalid)
	_, err = q.Receive(c, name, 1, 0, 0)
	wantErr(t, "Receive with visibility 0", err, queue.ErrInvalid)
	_, err = q.Receive(c, name, 1, 13*time.Hour, 0)
	wantErr(t, "Receive visibility over 12 h", err, queue.ErrInvalid)
	wantErr(t, "Delete empty receipt", q.Delete(c, name, ""), queue.ErrInvalid)
	wantErr(t, "ChangeVisibility empty receipt", q.ChangeVisibility(c, name, "", 0), queue.ErrInvalid)
	wantErr(t, "ChangeVisibility negative", q.ChangeVisibility(c, name, "x", -time.Second), queue.ErrInvalid)
	// The queue still works after all that.
	send(t, q, name, "{}", 0)
	receiveOne(t, q, name, 30*time.Second, 2*time.Second)
}

func testBatchLimit(t *testing.T, q queue.Queue, name string) {
	for range 3 {
		send(t, q, name, `{"n":1}`, 0)
	}
	msgs, err := q.Receive(ctx(t), name, 2, 30*time.Second, 2*time.Second)
	if err != nil {
		t.Fatalf("Receive: %v", err)
	}
	// SQS may return fewer than asked, never more.
	if len(msgs) < 1 || len(msgs) > 2 {
		t.Fatalf("Receive(max 2) got %d messages", len(msgs))
	}
	if len(msgs) == 2 && msgs[0].ID == msgs[1].ID {
		t.Fatal("the same message twice in one batch")
	}
}
