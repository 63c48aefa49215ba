# adjacent-vars.test: a decoded record without its offsets, the checkpoint's status byte
# (byte 18 of 19) as SS and without its packed size and whether its groups are two-level
# (format 8), which the status byte changes.
s/^ +[0-9]+ +[0-9]+ +[0-9]+ +//
s/^(CHECKPOINT anchor=1 len=19 bytes=(.. ){17}).. /\1SS /
s/ \(packed in [0-9]+ bytes(, two-level)?\)//
