;;; tron.scm -- the Scheme course's Tron library (Tron API 1.0, as the course's document
;;; describes it), shipped with lightcycle.  Load it, then write brains:
;;;
;;;   (load "tron.scm")
;;;   (load "random-move-bot.scm")
;;;   (play-tron '(37 . 10) (make-outer-walls '(37 . 10)) '(1 . 1) '(35 . 8)
;;;              random-move-bot random-move-bot)
;;;
;;; It runs on GNU Guile 3 and on Chez Scheme 9.5 (the course's Scheme).  What each of them
;;; lacks of the other is supplied below, inside `cond-expand'; the rest is portable.
;;; See docs/scheme.md in lightcycle for the whole story (seats, the server, the judge).

;; Chez Scheme 9.5 has no `cond-expand'.  Guile reads the next lines up to the bang-hash
;; as a block comment and keeps its own; Chez reads `#!chezscheme' as its reader
;; directive and defines the small `cond-expand' below.
#!chezscheme
(define-syntax cond-expand
  (lambda (x)
    (define (ok? req)
      (syntax-case req (and or not)
        [(and r ...) (for-all ok? #'(r ...))]
        [(or r ...) (exists ok? #'(r ...))]
        [(not r) (not (ok? #'r))]
        [id (identifier? #'id)
         (and (memq (syntax->datum #'id) '(chezscheme chez r6rs else)) #t)]))
    (syntax-case x ()
      [(_ (req body ...) clause ...)
       (if (ok? #'req) #'(begin body ...) #'(cond-expand clause ...))]
      [(_) #'(begin)])))
; !#

;;; What Guile lacks of the course's Scheme (Chez has all of it built in).
(cond-expand
 (guile
  (use-modules ((ice-9 format) #:prefix tron:ice9:)
               ((rnrs base) #:select (mod div mod0 div0 exact inexact assert))
               ((rnrs lists) #:select (for-all exists memp remp assp find partition
                                       fold-left fold-right remove))
               ((rnrs io ports) #:select (get-line flush-output-port))
               ((rnrs sorting) #:select (list-sort vector-sort))
               ((rnrs hashtables)
                #:select (make-eq-hashtable make-eqv-hashtable
                          hashtable-ref hashtable-set! hashtable-contains?
                          hashtable-update! hashtable-delete! hashtable-size
                          hashtable-keys)))
  (define (tron:chez-directives fmt)
    ;; Chez's `~n' is a newline; Guile's format calls it `~%'.
    (let loop ((cs (string->list fmt)) (out '()))
      (cond
       ((null? cs) (list->string (reverse out)))
       ((and (char=? (car cs) #\~) (pair? (cdr cs)) (memv (cadr cs) '(#\n #\N)))
        (loop (cddr cs) (cons* #\% #\~ out)))
       ((and (char=? (car cs) #\~) (pair? (cdr cs)))
        (loop (cddr cs) (cons* (cadr cs) #\~ out)))
       (else (loop (cdr cs) (cons (car cs) out))))))
  (define (format first . rest)
    ;; Chez's format: (format "..." x) returns a string; (format #t|port "..." x) prints.
    (if (string? first)
        (apply tron:ice9:format #f (tron:chez-directives first) rest)
        (apply tron:ice9:format first (tron:chez-directives (car rest)) (cdr rest))))
  (define (printf fmt . args) (apply format #t fmt args))
  (define (fprintf port fmt . args) (apply format port fmt args))
  (define (-1+ n) (- n 1))
  (define (add1 n) (+ n 1))
  (define (sub1 n) (- n 1))
  (define (void) (if #f #f))
  (define (tron:utf-8! port)
    ;; the board's symbols need UTF-8 whatever the locale says (LANG=C would print "?")
    (unless (member (port-encoding port) '("UTF-8" "utf-8" "UTF8"))
      (set-port-encoding! port "UTF-8")))
  (define (tron:sleep seconds)
    (when (> seconds 0) (usleep (inexact->exact (round (* seconds 1000000))))))
  (define tron:output-resets? #f)
  (define (tron:seed-random! n) (set! *random-state* (seed->random-state n)))
  (define (tron:load file)
    ;; a relative name from the current folder (`load' would read it from the folder of
    ;; the file that calls it)
    (primitive-load file))
  (define (tron:error who message . irritants)
    (apply error (string-append (symbol->string who) ": " message) irritants))
  (define (tron:connect host port)
    ;; a TCP connection to HOST:PORT, as one input port and one output port
    (let loop ((addresses
                (catch #t
                  (lambda () (getaddrinfo host (number->string port) 0 AF_UNSPEC SOCK_STREAM))
                  (lambda (key . args)
                    (tron:error 'play-remote-tron "cannot find the host" host))))
               (why "no address"))
      (if (null? addresses)
          (tron:error 'play-remote-tron
                      (string-append "cannot connect to " host ":" (number->string port)
                                     ": " why))
          (let* ((ai (car addresses))
                 (s (socket (addrinfo:fam ai) SOCK_STREAM 0)))
            (catch 'system-error
              (lambda ()
                (connect s (addrinfo:addr ai))
                (set-port-encoding! s "UTF-8")
                (values s s))
              (lambda (key . args)
                (close-port s)
                (loop (cdr addresses)
                      ;; args: (who format-string format-arguments errno)
                      (if (and (= (length args) 4) (string? (cadr args)) (list? (caddr args)))
                          (apply simple-format #f (cadr args) (caddr args))
                          "connection failed")))))))))
 (chezscheme
  (define (tron:utf-8! port) (void))
  (define (tron:sleep seconds)
    (when (> seconds 0)
      (let* ((ns (exact (round (* seconds 1000000000))))
             (s (quotient ns 1000000000)))
        (sleep (make-time 'time-duration (- ns (* s 1000000000)) s)))))
  (define tron:output-resets? #t)
  (define (tron:load file) (load file))
  (define (tron:seed-random! n) (random-seed n))
  (define (tron:error who message . irritants)
    (apply error who message irritants))
  ;; Chez's standard library has no sockets: the C library's, through the FFI (Linux).
  (define-ftype tron:addrinfo
    (struct (flags int) (family int) (socktype int) (protocol int)
            (addrlen unsigned-32) (addr uptr) (canonname uptr) (next uptr)))
  (define tron:libc-loaded #f)
  (define (tron:libc!)
    (unless tron:libc-loaded
      (let loop ((names '("libc.so.6" "libc.so")))
        (cond
         ((null? names)
          (tron:error 'play-remote-tron "cannot load the C library (libc.so.6) for sockets"))
         ((guard (e (#t #f)) (load-shared-object (car names)) #t)
          (set! tron:libc-loaded #t))
         (else (loop (cdr names)))))))
  (define (tron:connect host port)
    (tron:libc!)
    (let ((getaddrinfo (foreign-procedure "getaddrinfo" (string string uptr uptr) int))
          (freeaddrinfo (foreign-procedure "freeaddrinfo" (uptr) void))
          (gai-strerror (foreign-procedure "gai_strerror" (int) string))
          (socket (foreign-procedure "socket" (int int int) int))
          (connect (foreign-procedure "connect" (int uptr unsigned-32) int))
          (close (foreign-procedure "close" (int) int))
          (dup (foreign-procedure "dup" (int) int))
          (errno-at (foreign-procedure "__errno_location" () uptr))
          (strerror (foreign-procedure "strerror" (int) string))
          (size (ftype-sizeof tron:addrinfo))
          (utf-8 (make-transcoder (utf-8-codec) (eol-style lf))))
      (define (fail why)
        (tron:error 'play-remote-tron
                    (format "cannot connect to ~a:~a: ~a" host port why)))
      (let ((hints (foreign-alloc size)) (res (foreign-alloc 8)))
        (do ((i 0 (+ i 1))) ((= i size)) (foreign-set! 'unsigned-8 hints i 0))
        (ftype-set! tron:addrinfo (socktype) (make-ftype-pointer tron:addrinfo hints) 1)
        (let* ((rc (getaddrinfo host (number->string port) hints res))
               (head (if (= rc 0) (foreign-ref 'uptr res 0) 0)))
          (foreign-free hints)
          (foreign-free res)
          (unless (= rc 0) (fail (gai-strerror rc)))
          (let loop ((ai head) (why "no address"))
            (if (= ai 0)
                (begin (freeaddrinfo head) (fail why))
                (let* ((p (make-ftype-pointer tron:addrinfo ai))
                       (next (ftype-ref tron:addrinfo (next) p))
                       (fd (socket (ftype-ref tron:addrinfo (family) p)
                                   (ftype-ref tron:addrinfo (socktype) p)
                                   (ftype-ref tron:addrinfo (protocol) p))))
                  (cond
                   ((< fd 0) (loop next (strerror (foreign-ref 'int (errno-at) 0))))
                   ((= 0 (connect fd (ftype-ref tron:addrinfo (addr) p)
                                  (ftype-ref tron:addrinfo (addrlen) p)))
                    (freeaddrinfo head)
                    (values (open-fd-input-port fd (buffer-mode block) utf-8)
                            (open-fd-output-port (dup fd) (buffer-mode block) utf-8)))
                   (else
                    (let ((why (strerror (foreign-ref 'int (errno-at) 0))))
                      (close fd)
                      (loop next why)))))))))))))

;;; 2. The board: moves are the compass directions.
(define valid-moves '(n w s e))

;;; 11. Valid sizes, walls and positions.
(define (valid-size? size)
  (and (pair? size)
       (integer? (car size)) (integer? (cdr size))
       (exact? (car size)) (exact? (cdr size))
       (positive? (car size)) (positive? (cdr size))))

(define (valid-position? size pos)
  (and (pair? pos)
       (integer? (car pos)) (integer? (cdr pos))
       (exact? (car pos)) (exact? (cdr pos))
       (<= 0 (car pos)) (<= 0 (cdr pos))
       (< (car pos) (car size)) (< (cdr pos) (cdr size))))

(define (valid-walls? size walls)
  (and (list? walls)
       (let loop ((ws walls))
         (or (null? ws) (and (valid-position? size (car ws)) (loop (cdr ws)))))))

;;; 23. Where a move leads, on the torus.
(define (get-pos m old size)
  (let ((width (car size)) (height (cdr size)) (x (car old)) (y (cdr old)))
    (case m
      ((n) (cons x (modulo (- y 1) height)))
      ((w) (cons (modulo (- x 1) width) y))
      ((e) (cons (modulo (+ x 1) width) y))
      ((s) (cons x (modulo (+ y 1) height)))
      (else (tron:error 'get-pos "invalid move" m)))))

;;; 24. The walls all round a board (its corners listed twice, as the document's are).
(define (make-outer-walls size)
  (let ((x (car size)) (y (cdr size)))
    (append (map (lambda (v) (cons v 0)) (iota x))
            (map (lambda (v) (cons v (- y 1))) (iota x))
            (map (lambda (v) (cons 0 v)) (iota y))
            (map (lambda (v) (cons (- x 1) v)) (iota y)))))

;;; 9. The game's status after a turn: draw, p1 (player 1 has won), p2, or not-over.
;;; Both cycles in one cell is a crash of both, as a head-on meeting is.
(define (game-status pos1 pos2 walls)
  (let ((p1-dead? (or (member pos1 walls) (equal? pos1 pos2)))
        (p2-dead? (or (member pos2 walls) (equal? pos1 pos2))))
    (cond
     ((and p1-dead? p2-dead?) 'draw)
     (p1-dead? 'p2)
     (p2-dead? 'p1)
     (else 'not-over))))

;;; 18. A move as the protocol sends it: one of the symbols of valid-moves.
(define (string->move str)
  (let ((val (with-input-from-string str read)))
    (or (and (symbol? val) (memq val valid-moves) val)
        (tron:error 'string->move "not a valid move" val))))

;;; 21-22. The board in the terminal: one symbol and a blank a cell.
(define tron:free-cell (string (integer->char #x25E6) #\space))  ; white bullet
(define tron:wall-cell (string (integer->char #x22A0) #\space))  ; squared times
(define tron:cycle-1 (string (integer->char #x2660) #\space))    ; spade
(define tron:cycle-2 (string (integer->char #x2663) #\space))    ; club
(define tron:dead-cell (string (integer->char #x2716) #\space))  ; heavy multiplication x

(define (print-board size walls pos1 pos2)
  (let ((port (current-output-port)))
    (tron:utf-8! port)
    (do ((i 0 (+ i 1))) ((= i (cdr size)))
      (do ((j 0 (+ j 1))) ((= j (car size)))
        (let ((p (cons j i)))
          (display
           (cond
            ((member p walls)
             (if (or (equal? p pos1) (equal? p pos2)) tron:dead-cell tron:wall-cell))
            ((and (equal? p pos1) (equal? p pos2)) tron:dead-cell)
            ((equal? p pos1) tron:cycle-1)
            ((equal? p pos2) tron:cycle-2)
            (else tron:free-cell))
           port)))
      (newline port))
    (newline port)))

;;; 25. Whether a board is fair: the walls are symmetric under a move of the board that
;;; swaps the two cycles.  The document's symmetry is the mirror across the line
;;; perpendicular to the one through both cycles (a symmetry of the grid when they share
;;; a row, a column or, on a square board, a diagonal); a board is also fair when it is
;;; symmetric under the half turn about the point between the cycles (the document's own
;;; example board is).  Coordinates wrap, as the torus does.
(define (fair-game? size walls pos1 pos2)
  (unless (valid-size? size) (tron:error 'fair-game? "invalid board size" size))
  (unless (valid-walls? size walls) (tron:error 'fair-game? "invalid walls list" walls))
  (unless (valid-position? size pos1) (tron:error 'fair-game? "invalid cycle position" pos1))
  (unless (valid-position? size pos2) (tron:error 'fair-game? "invalid cycle position" pos2))
  (let* ((w (car size)) (h (cdr size))
         (x1 (car pos1)) (y1 (cdr pos1)) (x2 (car pos2)) (y2 (cdr pos2))
         (dx (- x2 x1)) (dy (- y2 y1))
         (cells (make-vector (* w h) #f)))
    (define (index x y) (+ (* (modulo y h) w) (modulo x w)))
    (define (symmetric? image)
      (for-each (lambda (p) (vector-set! cells (index (car p) (cdr p)) #t)) walls)
      (let loop ((ws walls))
        (or (null? ws)
            (let ((q (image (car (car ws)) (cdr (car ws)))))
              (and (vector-ref cells (index (car q) (cdr q))) (loop (cdr ws)))))))
    (define (mirror)
      (cond
       ((= dy 0) (lambda (x y) (cons (- (+ x1 x2) x) y)))
       ((= dx 0) (lambda (x y) (cons x (- (+ y1 y2) y))))
       ((and (= w h) (= dx dy))
        (let ((s (quotient (+ x1 y1 x2 y2) 2))) (lambda (x y) (cons (- s y) (- s x)))))
       ((and (= w h) (= dx (- dy)))
        (let ((d (quotient (- (+ x1 x2) (+ y1 y2)) 2))) (lambda (x y) (cons (+ y d) (- x d)))))
       (else #f)))
    (let ((m (mirror)))
      (or (and m (symmetric? m))
          (symmetric? (lambda (x y) (cons (- (+ x1 x2) x) (- (+ y1 y2) y))))))))

;;; 5-6, 15. Brains.  `define-tron-brain' binds PROC to a procedure of a play port and an
;;; info port: it sends the name, reads the size and the walls, evaluates the state's
;;; INIT once, and returns the brain mover, a procedure of a port holding this turn's two
;;; positions.  The mover binds them, runs the body (wrapped in `let ()', so it may start
;;; with definitions) and keeps the body's value as the next state.
(define tron:brains '())  ; (name . proc), the last defined first

(define (tron:register-brain! name proc)
  (set! tron:brains (cons (cons name proc) tron:brains))
  proc)

(define (tron:send-name who port name)
  (unless (string? name) (tron:error who "the brain's name must be a string" name))
  (display name port)
  (newline port)
  (flush-output-port port))

(define (tron:read-start who port)
  ;; a datum of the game's start: the size, then the walls
  (let ((x (read port)))
    (cond
     ((eof-object? x) (tron:error who "the game ended before it started (no board)"))
     ((and (pair? x) (eq? (car x) 'error))
      (tron:error who (string-append "refused: "
                                     (if (and (pair? (cdr x)) (string? (cadr x)))
                                         (cadr x)
                                         "no reason given"))))
     (else x))))

;; `play' for one brain: (play move) sends MOVE, once a turn, and returns the state
;; unchanged; (play move new-state) returns NEW-STATE, so a body may end with it.  The
;; pair's cdr is the mover's side: (control 'turn state) starts a turn, (control
;; 'played?) says whether it played.
(define (tron:make-player name port)
  (let ((played #f) (current-state #f))
    (cons
     (lambda (move . new-state)
       (unless (memq move valid-moves) (tron:error name "invalid move" move))
       (when played (tron:error name "a brain plays one move a turn; this is a second" move))
       (set! played #t)
       (write move port)
       (newline port)
       (flush-output-port port)
       (cond
        ((null? new-state) current-state)
        ((null? (cdr new-state)) (car new-state))
        (else (tron:error name "play takes a move and at most the new state" new-state))))
     (lambda (message . args)
       (case message
         ((turn) (set! played #f) (set! current-state (car args)))
         ((played?) played))))))

(define (make-play-proc name port)
  (car (tron:make-player name port)))

(define-syntax define-tron-brain
  (syntax-rules ()
    ((_ (proc (name size walls play ppos opos) (state init)) b1 b2 ...)
     (define proc
       (tron:register-brain!
        'proc
        (lambda (play-port info-port)
          (let ((brain-name name))
            (tron:send-name 'proc play-port brain-name)
            (let* ((size (tron:read-start 'proc info-port))
                   (walls (tron:read-start 'proc info-port))
                   (player (tron:make-player 'play play-port))
                   (play (car player)))
              (let ((state init))
                (case-lambda
                  (() brain-name)
                  ((port)
                   (let* ((ppos (read port)) (opos (read port)))
                     ((cdr player) 'turn state)
                     (let ((next (let () b1 b2 ...)))
                       (unless ((cdr player) 'played?)
                         (tron:error 'proc "the brain did not play a move this turn"))
                       (set! state next))))))))))))))

;;; 7-8, 10, 12, 16-17. A game on this machine, shown in the terminal.
(define play-tron-delay (make-parameter 1/4))
;; seconds between turns, to watch: (parameterize ((play-tron-delay 0)) (play-tron ...))

(define tron:seat-mode #f)  ; #t while a file is loaded to play as a seat (see seat.scm)

(define (make-info-port size walls)
  (open-input-string (tron:written size walls)))

(define (make-pos-port p1 p2)
  (open-input-string (tron:written p1 p2)))

(define (tron:written . data)
  (let ((port (open-output-string)))
    (for-each (lambda (d) (write d port) (newline port)) data)
    (get-output-string port)))

(define (parse-name str)
  (let* ((line (let ((l (with-input-from-string str (lambda () (get-line (current-input-port))))))
                 (if (eof-object? l) "" l)))
         (strip (lambda (cs) (or (memp (lambda (c) (not (char-whitespace? c))) cs) '()))))
    (list->string (reverse (strip (reverse (strip (string->list line))))))))

(define (tron:output-taker port)
  ;; what a brain wrote to PORT since the last call (a string output port)
  (let ((seen 0))
    (lambda ()
      (let* ((s (get-output-string port)) (n (string-length s)))
        (if tron:output-resets?
            s
            (let ((new (substring s (min seen n) n))) (set! seen n) new))))))

(define (play-tron size walls pos1 pos2 b1 b2)
  (unless (valid-size? size) (tron:error 'play-tron "invalid board size" size))
  (unless (valid-walls? size walls) (tron:error 'play-tron "invalid walls list" walls))
  (unless (valid-position? size pos1) (tron:error 'play-tron "invalid cycle position" pos1))
  (unless (valid-position? size pos2) (tron:error 'play-tron "invalid cycle position" pos2))
  (unless (procedure? b1) (tron:error 'play-tron "invalid brain" b1))
  (unless (procedure? b2) (tron:error 'play-tron "invalid brain" b2))
  (if tron:seat-mode
      (begin (display "play-tron: skipped while this file plays as a seat\n"
                      (current-error-port))
             (void))
      (let* ((out1 (open-output-string)) (out2 (open-output-string))
             (b1-get (tron:output-taker out1)) (b2-get (tron:output-taker out2))
             (b1-play (b1 out1 (make-info-port size walls)))
             (b2-play (b2 out2 (make-info-port size walls)))
             (name1 (parse-name (b1-get)))
             (name2 (parse-name (b2-get))))
        (tron:utf-8! (current-output-port))
        (printf "Name1: ~a~nName2: ~a~n" name1 name2)
        (let loop ((pos1 pos1) (pos2 pos2) (walls walls))
          (print-board size walls pos1 pos2)
          (let ((status (game-status pos1 pos2 walls)))
            (case status
              ((draw) (printf "The game was a draw.~n"))
              ((p1) (printf "~a (Player 1) has won!~n" name1))
              ((p2) (printf "~a (Player 2) has won!~n" name2))
              (else
               (flush-output-port (current-output-port))
               (tron:sleep (play-tron-delay))
               (b1-play (make-pos-port pos1 pos2))
               (b2-play (make-pos-port pos2 pos1))
               (loop (get-pos (string->move (b1-get)) pos1 size)
                     (get-pos (string->move (b2-get)) pos2 size)
                     (cons* pos1 pos2 walls)))))))))

;;; 13, 19. A game on a server, over the document's protocol: the brain's name, then the
;;; size and the walls, then each turn both positions and a move, and at the end win,
;;; loss or draw.  `tron:drive' plays one such game on any two ports: a server's socket
;;; (play-remote-tron) or a referee's pipes (seat.scm, `lightcycle play --bots scheme:').
(define (tron:drive who brain in out . options)
  ;; the result: win, loss or draw (or eof when the other end closed first), the turns
  ;; played and the brain's name.  With the option 'seed-from-game, `random' is seeded
  ;; before each turn from the game so far (a seat's games replay the same, and differ
  ;; as soon as the opponent plays differently).
  (let ((mover (brain out in))
        (seeding (memq 'seed-from-game options)))
    (let loop ((turns 0) (seed 20111))
      (let ((x (read in)))
        (cond
         ((memq x '(win loss draw)) (values x turns (mover)))
         ((eof-object? x) (values x turns (mover)))
         ((and (pair? x) (eq? (car x) 'error))
          (tron:read-start who (make-pos-port x '())))  ; raises naming the server's reason
         (else
          (let ((y (read in)))
            (when (eof-object? y) (tron:error who "the game ended in the middle of a turn"))
            (let ((next (tron:mix-seed seed x y)))
              (when seeding (tron:seed-random! next))
              (mover (make-pos-port x y))
              (loop (+ turns 1) next)))))))))

(define (tron:mix-seed seed p q)
  ;; a number in [1, 2^31 - 1) from the last one and this turn's positions
  (let ((v (fold-left (lambda (acc n) (modulo (+ (* acc 48271) n 1) 2147483647))
                      seed
                      (if (and (pair? p) (pair? q)
                               (integer? (car p)) (integer? (cdr p))
                               (integer? (car q)) (integer? (cdr q)))
                          (list (car p) (cdr p) (car q) (cdr q))
                          '()))))
    (if (< v 1) 1 v)))

(define (tron:result-line name result turns)
  (let ((after (string-append " after " (number->string turns)
                              (if (= turns 1) " move." " moves."))))
    (case result
      ((win) (string-append name " has won" after))
      ((loss) (string-append name " has lost" after))
      ((draw) (string-append "The game was a draw" after))
      (else (string-append "The server closed the connection" after)))))

(define (play-remote-tron host port brain)
  (unless (string? host) (tron:error 'play-remote-tron "the host must be a string" host))
  (unless (and (integer? port) (exact? port) (< 0 port 65536))
    (tron:error 'play-remote-tron "invalid port number" port))
  (unless (procedure? brain) (tron:error 'play-remote-tron "invalid brain" brain))
  (if tron:seat-mode
      (begin (display "play-remote-tron: skipped while this file plays as a seat\n"
                      (current-error-port))
             (void))
      (call-with-values (lambda () (tron:connect host port))
        (lambda (in out)
          (call-with-values (lambda () (tron:drive 'play-remote-tron brain in out))
            (lambda (result turns name)
              (close-port out)
              (unless (eq? in out) (close-port in))
              (display (tron:result-line name result turns))
              (newline)
              result))))))
