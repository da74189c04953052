package bench

import (
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/load/replay"
	"github.com/spf13/pflag"
)

// CmdReplay plays a load profile (package load/replay): not one of etcd
// benchmark's commands. Its engine lives in package measure/replay, which
// scores the replay against the profile with the profile command's own
// derivation.
const CmdReplay = "replay"

// Replay defaults: an open loop needs clients enough for its rate times
// the latency (64 in flight carry 6,400 requests/s at 10 ms), spread over
// a few connections as kube-apiservers do.
const (
	ReplayClients = 64
	ReplayConns   = 4
)

// ReplayOptions are bench replay's: the profile and how to play it.
type ReplayOptions struct {
	// Path is the profile file (the command's argument); Profile is it,
	// read and checked by Validate.
	Path    string
	Profile *replay.Profile
	// Speed compresses the profile's series in time (5: ten minutes in
	// two); Scale multiplies its rates (3: three times the load).
	Speed, Scale float64
}

// replayOptions are bench replay's flags.
type replayOptions struct{ speed, scale float64 }

func (o *replayOptions) register(fl *pflag.FlagSet) {
	fl.Float64Var(&o.speed, "speed", 1, "play the profile's time series this many times faster (5: ten minutes of history in two)")
	fl.Float64Var(&o.scale, "scale", 1, "multiply every rate of the profile (3: three times the load)")
}

func (o *replayOptions) apply(cfg *Config) {
	cfg.Replay.Speed, cfg.Replay.Scale = o.speed, o.scale
	if len(cfg.Args) == 1 {
		cfg.Replay.Path = cfg.Args[0]
	}
}

// validateReplay checks bench replay's options and reads its profile (a
// bad profile is invalid input: nothing is dialled).
func (c *Config) validateReplay() error {
	if len(c.Args) != 1 {
		return invalid.Errorf("replay needs one profile file: bench replay PROFILE (etcdlab profile writes one)")
	}
	c.Replay.Path = c.Args[0]
	if !(c.Replay.Speed > 0) {
		return invalid.Errorf("{Speed} must be positive, not %g", c.Replay.Speed)
	}
	if !(c.Replay.Scale > 0) {
		return invalid.Errorf("{Scale} must be positive, not %g", c.Replay.Scale)
	}
	if c.Rate != 0 || c.Total != 0 {
		return invalid.Errorf("replay's rates are the profile's ({Scale} multiplies them; {Duration} bounds the run): no {Rate} or {Total}")
	}
	p, err := replay.ReadFile(c.Replay.Path)
	if err != nil {
		return err
	}
	c.Replay.Profile = p
	return nil
}
