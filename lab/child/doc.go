// Package child starts and ends etcdlab's child processes (etcd members,
// kube-apiserver and the other control-plane components, hollow nodes,
// local load agents, the disk job on a slow disk): every child is born in
// a process group of its own (a terminal's Ctrl-C reaches etcdlab, which
// stops its children in order) with a parent-death signal (SIGKILL, or
// SIGINT for a child that cleans up after itself: no orphans, even when
// etcdlab is SIGKILLed), its output appended to a log file whose readable
// tail goes into errors (StartError) or written where its command says,
// and is stopped with a signal, then SIGKILL after a grace period. Run directories named after their process (RunDir) are swept
// by the next run after a kill -9.
//
// Linux sends a child's parent-death signal when the thread that forked it
// exits, not the process: a Spawner forks from one OS thread that lives
// until Close, so the signal means what it says. That thread may first
// enter namespaces (lab/cluster's emulated network, a private mount
// namespace for slow disks); children are then born in them, and work that
// must happen in them (mounting a slow disk) runs on it too (Spawner.Do).
//
// A Spawner and a Process are safe for concurrent use.
package child
