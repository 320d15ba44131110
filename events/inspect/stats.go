package inspect

import (
	"math"

	"github.com/tracecodec/tracecodec/events"
)

// Stats are the event keys tracecat stats prints for every event format,
// the same for each: how many events the reader yields and their time
// range. Metadata records (WTF definitions and zone records) count as
// events but have no place in the time keys, nor have records without a
// time.
type Stats struct {
	Events int64 // every event the reader yielded
	// Timed is false when no event had a time; the times below are then 0.
	Timed bool
	// First and Last are the times of the first and last timed event in
	// the reader's order; Min and Max the least and greatest (ns).
	First, Last int64
	Min, Max    int64
	// Backwards counts the timed events earlier than the timed event
	// before them on their own track (thread, worker, zone): the formats
	// do not promise order within a track (ATF writers append a detail
	// lane's events after the index lane's; a dial9 worker's batches may
	// interleave), so it is reported, not an error.
	Backwards int64
	// Recovered is the reader's Recovered after the last event.
	Recovered bool
}

// trackKey identifies a track for Backwards.
type trackKey struct {
	kind events.TrackKind
	id   uint64
}

// Scan reads r to its end and returns its Stats. progress, when not nil, is
// called every ProgressEvery events with the count so far; an error it
// returns (an interrupt) ends the scan with that error.
func Scan(r *events.Reader, progress func(read int64) error) (Stats, error) {
	s := Stats{Min: math.MaxInt64, Max: math.MinInt64}
	lastTime := map[trackKey]int64{}
	var lastKey trackKey
	var lastT int64
	haveLast := false
	for r.Next() {
		s.Events++
		if progress != nil && s.Events%ProgressEvery == 0 {
			if err := progress(s.Events); err != nil {
				return Stats{}, err
			}
		}
		ev := r.Event()
		if !ev.HasTime() || ev.Kind() == events.KindMetadata {
			continue
		}
		t := ev.Time()
		// The last time per track, the previous event's track in front
		// of the map (tracks are bounded by the decoders).
		tr := ev.Track()
		if k := (trackKey{tr.Kind, tr.ID}); k == lastKey && haveLast {
			if t < lastT {
				s.Backwards++
			}
			lastT = t
		} else {
			if haveLast {
				lastTime[lastKey] = lastT
			}
			if p, ok := lastTime[k]; ok && t < p {
				s.Backwards++
			}
			lastKey, lastT, haveLast = k, t, true
		}
		s.see(t)
	}
	if err := r.Err(); err != nil {
		return Stats{}, err
	}
	if !s.Timed {
		s.Min, s.Max = 0, 0
	}
	s.Recovered = r.Recovered()
	return s, nil
}

// see counts the time t of a timed event into First, Last, Min and Max.
func (s *Stats) see(t int64) {
	if !s.Timed {
		s.First = t
	}
	s.Timed = true
	s.Last = t
	s.Min = min(s.Min, t)
	s.Max = max(s.Max, t)
}
