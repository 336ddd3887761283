;;; seat.scm -- play a brain file as a seat of lightcycle's referee: the course's
;;; protocol (lightcycle's `sexp') on standard input and output, with no code of the
;;; student's but the brain.  lightcycle starts it for `--bots scheme:FILE.scm':
;;;
;;;   guile --no-auto-compile seat.scm tron.scm FILE.scm [PROC] [--check]
;;;   scheme --script seat.scm tron.scm FILE.scm [PROC] [--check]
;;;
;;; It loads tron.scm, then FILE.scm with its output sent to standard error (standard
;;; output is the referee's) and `play-tron' and `play-remote-tron' switched off, then
;;; plays one game with the brain PROC, or with the last brain FILE.scm defines.  With
;;; --check it only says which brain it would play (the judge's build step).

(define tron:seat-check (member "--check" (command-line)))

(define tron:seat-arguments
  (let loop ((args (cdr (command-line))))
    (cond ((null? args) '())
          ((equal? (car args) "--check") (loop (cdr args)))
          (else (cons (car args) (loop (cdr args)))))))

(unless (<= 2 (length tron:seat-arguments) 3)
  (display "usage: seat.scm TRON.SCM BRAIN.SCM [PROC] [--check]\n" (current-error-port))
  (exit 2))

(load (car tron:seat-arguments))

(define (tron:seat-fail message)
  (display (string-append "seat.scm: " message "\n") (current-error-port))
  (exit 2))

(define (tron:play-seat file proc-name)
  (set! tron:seat-mode #t)
  (parameterize ((current-output-port (current-error-port)))
    (tron:load file))
  (let ((entry (if proc-name
                   (assq (string->symbol proc-name) tron:brains)
                   (and (pair? tron:brains) (car tron:brains)))))
    (cond
     ((and (not entry) proc-name)
      (tron:seat-fail
       (string-append file " defines no brain " proc-name " (define-tron-brain (" proc-name
                      " ...) ...)")))
     ((not entry)
      (tron:seat-fail
       (string-append file " defines no brain: write one with (define-tron-brain ...)")))
     (tron:seat-check
      (display (string-append file ": plays the brain "
                              (symbol->string (car entry)) "\n")))
     (else
      (let ((out (current-output-port)))
        (tron:utf-8! out)
        (call-with-values
            (lambda ()
              (tron:drive (car entry) (cdr entry) (current-input-port) out 'seed-from-game))
          (lambda (result turns name)
            (display (string-append (tron:result-line name result turns) "\n")
                     (current-error-port)))))))))

(tron:play-seat (cadr tron:seat-arguments)
                (and (pair? (cddr tron:seat-arguments)) (caddr tron:seat-arguments)))
