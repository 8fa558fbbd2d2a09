package fsops

import (
	"context"
	"slices"
)

// sortRun is the length of the runs sorted in one go before merging: short
// enough that sorting one takes microseconds.
const sortRun = 512

// sortPoll is how many names a merge writes between two looks at ctx.
const sortPoll = 4096

// sortNames sorts names in byte order, polling ctx as it goes. A plain sort
// of 100,000 names takes tens of milliseconds with no way to stop it, which
// alone would break the promise to cancel within a frame, so this is a
// bottom-up merge sort: sorted runs, then merge passes that each look at ctx
// every sortPoll names. On cancel names is left in some permutation and the
// context's error is returned.
func sortNames(ctx context.Context, names []string) error {
	n := len(names)
	for lo := 0; lo < n; lo += sortRun {
		if err := ctx.Err(); err != nil {
			return err
		}
		slices.Sort(names[lo:min(lo+sortRun, n)])
	}
	if n <= sortRun {
		return nil
	}
	src, dst := names, make([]string, n)
	poll := 0
	for width := sortRun; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid, hi := min(lo+width, n), min(lo+2*width, n)
			a, b, out := src[lo:mid], src[mid:hi], dst[lo:hi]
			i, j := 0, 0
			for k := range out {
				if poll++; poll == sortPoll {
					poll = 0
					if err := ctx.Err(); err != nil {
						return err
					}
				}
				if j == len(b) || (i < len(a) && a[i] <= b[j]) {
					out[k] = a[i]
					i++
				} else {
					out[k] = b[j]
					j++
				}
			}
		}
		src, dst = dst, src
	}
	if &src[0] != &names[0] {
		copy(names, src)
	}
	return nil
}
