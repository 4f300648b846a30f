// Package catalog ships the demo Gate catalog (demo.json): the admin CLI
// loads files like it, and `make run` loads this one into the sandbox account.
package democatalog

import _ "embed"

// Demo is demo.json, the demo catalog.
//
//go:embed demo.json
var Demo []byte
