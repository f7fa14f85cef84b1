#!/bin/sh
# An external strategy in jq: reveal the hidden clue at the first discriminative-gap cell (else
# the first hidden clue of the pool). One JSON answer line per request line.
exec jq -n -c --unbuffered 'foreach inputs as $r ({pool: []};
  if $r.type == "start" then .pool = $r.pool else . end;
  if $r.type == "start" then {reveal: []}
  else $r.clues as $shown
    | [.pool[] | select(.id as $i | any($shown[]; . == $i) | not)] as $hidden
    | [($r.report.rejectDetail.discriminativeGap // [])[] | .coord] as $gap
    | ([$hidden[] | select(.coords[0] as $c | any($gap[]; . == $c))] + $hidden) as $picks
    | {reveal: [$picks[:1][] | .coords[0]]}
  end)'
