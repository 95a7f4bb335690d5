// wsx lightbox: images of a room open in an overlay <dialog>; chosen files show as chips.
'use strict';
