package reload_test

import (
	"runtime"
	"testing"

	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/librarytest"
	"github.com/promptdesk/promptdesk/library/reload"
)

// BenchmarkNewLarge loads a library folder as serve --library does at
// start: "generated", the library of librarytest.Large ids (about 24,000
// module files in four locales, written once), and as the anchor of the
// same run "builtin", the builtin library written the same way. It
// reports the heap the loaded library holds (live-MB: after a collection,
// the Library still referenced) beside the size of its files (files-MB):
//
//	go test ./library/reload -run '^$' -bench NewLarge -benchtime 3x -count 3
func BenchmarkNewLarge(b *testing.B) {
	builtin, err := library.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	for _, side := range []struct {
		name string
		size int
	}{{"builtin", len(builtin.IDs())}, {"generated", librarytest.Large}} {
		dir := b.TempDir()
		if err := librarytest.Write(dir, side.size); err != nil {
			b.Fatal(err)
		}
		fsys, err := librarytest.FS(side.size)
		if err != nil {
			b.Fatal(err)
		}
		files := 0
		for _, f := range fsys {
			files += len(f.Data)
		}
		b.Run(side.name, func(b *testing.B) {
			var live uint64
			for range b.N {
				b.StopTimer()
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				b.StartTimer()
				lib, err := reload.New(dir, nil)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				runtime.GC()
				runtime.ReadMemStats(&after)
				if n := len(lib.Current().Snapshot.IDs()); n != side.size || len(lib.Current().Broken) > 0 {
					b.Fatalf("%d ids (want %d), broken %v", n, side.size, lib.Current().Broken)
				}
				runtime.KeepAlive(lib)
				live = after.HeapAlloc - before.HeapAlloc
				b.StartTimer()
			}
			b.ReportMetric(float64(live)/(1<<20), "live-MB")
			b.ReportMetric(float64(files)/(1<<20), "files-MB")
		})
	}
}
