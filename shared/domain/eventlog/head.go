package eventlog

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/paygate/paygate/shared/store"
)

// DecodeHead is Decode without the data (Data is nil): what the webhook
// publisher needs to route an event. A record as Append writes it holds
// its data last, so DecodeHead reads the fields before it and stops there,
// never scanning the data, which is most of a record (a payment's event
// carries the whole payment) and was most of the publisher's CPU. A
// record of any other shape (written before Append, or with its fields in
// another order) is read by Decode, so the answer is Decode's either way;
// a record damaged after its head is found by whoever reads its data.
func DecodeHead(it store.Item) (Record, error) {
	if r, ok := decodeHead(it.Data); ok {
		r.fillFromKey(it.Key)
		return r, nil
	}
	r, err := Decode(it)
	r.Data = nil
	return r, err
}

// decodeHead reads the head of a record laid out as encodeRecord writes
// it: the exact names id, type, account, created and livemode, each once,
// with values of their types, then data. Anything else is not ok.
func decodeHead(raw []byte) (Record, bool) {
	var r Record
	// A bytes.Buffer is parsed in place, not copied.
	dec := jsontext.NewDecoder(bytes.NewBuffer(raw))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return r, false
	}
	const (
		id = 1 << iota
		typ
		account
		created
		livemode
	)
	seen := 0
	for {
		name, err := dec.ReadToken()
		if err != nil || name.Kind() != '"' {
			return r, false
		}
		var field int
		switch name.String() {
		case "id":
			field = id
		case "type":
			field = typ
		case "account":
			field = account
		case "created":
			field = created
		case "livemode":
			field = livemode
		case "data":
			// Decode reads livemode from data when the head has none.
			return r, seen&livemode != 0
		default:
			return r, false
		}
		if seen&field != 0 {
			return r, false // a repeated name: Decode keeps the last
		}
		seen |= field
		v, err := dec.ReadToken()
		if err != nil {
			return r, false
		}
		switch {
		case field == created && v.Kind() == '0':
			n, ok := exactInt(v)
			if !ok {
				return r, false
			}
			r.Created = n
		case field == livemode && (v.Kind() == 't' || v.Kind() == 'f'):
			r.Livemode = v.Bool()
		case field != created && field != livemode && v.Kind() == '"':
			s := v.String()
			switch field {
			case id:
				r.ID = s
			case typ:
				r.Type = s
			default:
				r.Account = s
			}
		default:
			return r, false
		}
	}
}

// exactInt is a number token as an int64 when it is one exactly, as
// encoding/json would decode it into Created.
func exactInt(v jsontext.Token) (int64, bool) {
	s := v.String()
	n := int64(0)
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	if s == "" || len(s) > 18 { // 18 digits never overflow; longer ones go to Decode
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false // a fraction or an exponent
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}
