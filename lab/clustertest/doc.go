// Package clustertest is a test kit in the style of net/http/httptest: it
// starts a real local etcd cluster (lab/cluster) for one test, stops it
// when the test ends, and gives the test a client and helpers for the keys
// under a prefix.
//
//	func TestMain(m *testing.M) { os.Exit(member.RunTests(m)) }
//
//	func TestPuts(t *testing.T) {
//		c := clustertest.Start(t, cluster.Options{Members: 3})
//		c.PutKeys("/t/", 10)
//		if n := c.Count("/t/"); n != 10 { ... }
//		c.NoKeys("/t/")
//	}
//
// The members re-execute the test binary, so the package's TestMain must
// call member.RunTests (or member.RunIfChild). Only tests import this
// package: internal/archtest fails when production code does.
package clustertest
