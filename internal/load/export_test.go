package load

// Clock is the engine's clock, for the external tests.
type Clock = clock

// WithClock returns cfg with the engine on clock c instead of the system's.
func WithClock(cfg Config, c Clock) Config {
	cfg.clock = c
	return cfg
}
