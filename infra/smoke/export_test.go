package main

// Test-only helpers: nothing outside the tests calls these.

// StepNames lists the steps' names in order.
func StepNames() []string {
	var out []string
	for _, s := range steps {
		out = append(out, s.name)
	}
	return out
}
