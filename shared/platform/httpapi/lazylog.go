package httpapi

import (
	"context"
	"log/slog"
	"sync"
)

// requestLogger is log.With("request_id", id, "account", account), writing
// exactly what that logger writes, but without its cost on a request that
// logs nothing (most of them): slog's JSON handler formats the attributes
// given to With at once, on every request, whereas here they are handed to
// the handler at the request's first log line.
func requestLogger(log *slog.Logger, id, account string) *slog.Logger {
	return slog.New(&lazyAttrs{base: log.Handler(), attrs: [2]slog.Attr{slog.String("request_id", id), slog.String("account", account)}})
}

// lazyAttrs is base.WithAttrs(attrs), made when first needed.
type lazyAttrs struct {
	base  slog.Handler
	attrs [2]slog.Attr
	once  sync.Once
	h     slog.Handler
}

func (l *lazyAttrs) handler() slog.Handler {
	l.once.Do(func() { l.h = l.base.WithAttrs(l.attrs[:]) })
	return l.h
}

func (l *lazyAttrs) Enabled(ctx context.Context, level slog.Level) bool {
	return l.base.Enabled(ctx, level) // WithAttrs changes no level
}

func (l *lazyAttrs) Handle(ctx context.Context, r slog.Record) error {
	return l.handler().Handle(ctx, r)
}

func (l *lazyAttrs) WithAttrs(attrs []slog.Attr) slog.Handler { return l.handler().WithAttrs(attrs) }

func (l *lazyAttrs) WithGroup(name string) slog.Handler { return l.handler().WithGroup(name) }
