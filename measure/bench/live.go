package bench

import "github.com/etcdlab/etcdlab/load"

// CommandName is etcdlab_run_info's command label for bench.
const CommandName = "bench"

// LiveOptions are the options of the load.Live that shows cfg's runs
// (Config.Live): bench's command name, and this process's place among the
// agents of a distributed run (agent 0 of 1 when it runs alone).
func LiveOptions(cfg Config) load.LiveOptions {
	if cfg.Agent.Count > 1 {
		return load.LiveOptions{Command: CommandName, AgentIndex: cfg.Agent.Index, AgentCount: cfg.Agent.Count}
	}
	return load.LiveOptions{Command: CommandName, AgentIndex: 0, AgentCount: 1}
}

// liveBegin names a run in cfg.Live until the returned function is called
// (a no-op without a Live).
func (cfg *Config) liveBegin(run string) (end func()) {
	if cfg.Live == nil {
		return func() {}
	}
	return cfg.Live.Begin(run)
}
