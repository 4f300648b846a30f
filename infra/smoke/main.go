package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"
)

func main() {
	var cfg Config
	flag.StringVar(&cfg.URL, "url", os.Getenv("SMOKE_URL"), "base URL of the API (SMOKE_URL)")
	flag.StringVar(&cfg.Key, "key", os.Getenv("SMOKE_KEY"), "a test-mode secret key, sk_test_... (SMOKE_KEY)")
	flag.DurationVar(&cfg.OrderWithin, "order-within", 60*time.Second, "how long the order may stay pending")
	flag.Parse()
	cfg.Log = os.Stdout
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := Run(ctx, cfg); err != nil {
		fmt.Fprintf(os.Stderr, "smoke: FAILED against %s: %v\n", cfg.URL, err)
		os.Exit(1)
	}
	fmt.Printf("smoke: ok, %d steps against %s\n", len(steps), cfg.URL)
}
