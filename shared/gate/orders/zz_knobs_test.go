package orders

import (
	"os"
	"strconv"
	"time"
)

func init() {
	if v := os.Getenv("XBASE"); v != "" {
		d, _ := time.ParseDuration(v)
		xBase = d
	}
	if v := os.Getenv("XSHIFT"); v != "" {
		xShift, _ = strconv.Atoi(v)
	}
	xReread = os.Getenv("XREREAD") == "1"
	if v := os.Getenv("XBUDGET"); v != "" {
		placeBudget, _ = time.ParseDuration(v)
	}
}
