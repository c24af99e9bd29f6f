//go:build unix

package main

import "syscall"

// raiseNoFile raises this process's RLIMIT_NOFILE so it can hold thousands
// of sockets: the soft limit to the hard one, and both to want when allowed
// (root). It returns the soft limit in force afterwards.
func raiseNoFile(want uint64) (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, err
	}
	if lim.Max < want {
		up := syscall.Rlimit{Cur: want, Max: want}
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &up) == nil {
			return want, nil
		}
		// Not privileged: take what the hard limit allows.
	}
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			return 0, err
		}
	}
	return lim.Cur, nil
}
