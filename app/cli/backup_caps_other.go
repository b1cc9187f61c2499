//go:build !unix

package cli

func freeBytes(string) int64 { return -1 }
