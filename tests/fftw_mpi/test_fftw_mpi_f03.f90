! A Fortran 2003 program written for FFTW-MPI (the manual's Fortran example style: FFTW's own
! fftw3-mpi.f03 interface, dimensions reversed, a Fortran communicator), linked against volfft's
! volfft_fftw3_mpi: a 2-D complex DFT in place and a 3-D r2c with TRANSPOSED_OUT, each checked
! against FFTW's serial transform of the whole array. A failure aborts the job.
program test_fftw_mpi_f03
  use, intrinsic :: iso_c_binding
  use mpi
  implicit none
  include 'fftw3-mpi.f03'

  integer :: ierr, rank, nprocs

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call fftw_mpi_init()
  call complex_2d()
  call real_3d_transposed()
  call fftw_mpi_cleanup()
  if (rank == 0) print '(a,i0)', 'test_fftw_mpi_f03: all passed at np ', nprocs
  call MPI_Finalize(ierr)

contains

  subroutine fail(what)
    character(*), intent(in) :: what
    print '(a,i0,2a)', 'rank ', rank, ': ', what
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end subroutine fail

  ! Fortran's data(i, j) is C's [j][i]: FFTW distributes the last Fortran dimension.
  pure function value_at(i, j, k) result(v)
    integer(C_INTPTR_T), intent(in) :: i, j, k
    complex(C_DOUBLE_COMPLEX) :: v
    v = cmplx(sin(0.7d0 * i) + 0.2d0 * j - 0.05d0 * k, cos(0.3d0 * i * j + 0.1d0 * k), C_DOUBLE_COMPLEX)
  end function value_at

  subroutine complex_2d()
    integer(C_INTPTR_T), parameter :: L = 9, M = 7
    type(C_PTR) :: plan, cdata, cwhole, serial
    complex(C_DOUBLE_COMPLEX), pointer :: data(:, :), whole(:, :)
    integer(C_INTPTR_T) :: i, j, alloc_local, local_M, local_j_offset
    real(C_DOUBLE) :: scale

    alloc_local = fftw_mpi_local_size_2d(M, L, MPI_COMM_WORLD, local_M, local_j_offset)
    cdata = fftw_alloc_complex(max(alloc_local, 1_C_INTPTR_T))
    call c_f_pointer(cdata, data, [L, max(local_M, 1_C_INTPTR_T)])
    plan = fftw_mpi_plan_dft_2d(M, L, data, data, MPI_COMM_WORLD, FFTW_FORWARD, FFTW_ESTIMATE)
    if (.not. c_associated(plan)) call fail('fftw_mpi_plan_dft_2d returned NULL')
    do j = 1, local_M
      do i = 1, L
        data(i, j) = value_at(i, j + local_j_offset, 0_C_INTPTR_T)
      end do
    end do
    call fftw_mpi_execute_dft(plan, data, data)

    cwhole = fftw_alloc_complex(L * M)
    call c_f_pointer(cwhole, whole, [L, M])
    do j = 1, M
      do i = 1, L
        whole(i, j) = value_at(i, j, 0_C_INTPTR_T)
      end do
    end do
    serial = fftw_plan_dft_2d(int(M, C_INT), int(L, C_INT), whole, whole, FFTW_FORWARD, FFTW_ESTIMATE)
    call fftw_execute_dft(serial, whole, whole)
    scale = maxval(abs(whole))
    do j = 1, local_M
      do i = 1, L
        if (abs(data(i, j) - whole(i, j + local_j_offset)) > 1d-12 * scale) call fail('2-D c2c element')
      end do
    end do
    call fftw_destroy_plan(serial)
    call fftw_destroy_plan(plan)
    call fftw_free(cwhole)
    call fftw_free(cdata)
  end subroutine complex_2d

  ! Real L x M x N (Fortran order: data(2*(L/2+1), M, local_N)), r2c with TRANSPOSED_OUT: the
  ! output is (L/2+1) x N x local_M (the last two Fortran dimensions swapped, M distributed).
  subroutine real_3d_transposed()
    integer(C_INTPTR_T), parameter :: L = 8, M = 6, N = 5, Lc = L / 2 + 1
    type(C_PTR) :: plan, creal, ccomplex, cwhole, cspectrum, serial
    real(C_DOUBLE), pointer :: rin(:, :, :), whole(:, :, :)
    complex(C_DOUBLE_COMPLEX), pointer :: cout(:, :, :), spectrum(:, :, :)
    integer(C_INTPTR_T) :: i, j, k, alloc_local, local_N, local_k_offset, local_M, local_j_offset
    real(C_DOUBLE) :: scale

    alloc_local = fftw_mpi_local_size_3d_transposed(N, M, Lc, MPI_COMM_WORLD, local_N, local_k_offset, &
                                                    local_M, local_j_offset)
    creal = fftw_alloc_real(2 * max(alloc_local, 1_C_INTPTR_T))
    ccomplex = fftw_alloc_complex(max(alloc_local, 1_C_INTPTR_T))
    call c_f_pointer(creal, rin, [2 * Lc, M, max(local_N, 1_C_INTPTR_T)])
    call c_f_pointer(ccomplex, cout, [Lc, N, max(local_M, 1_C_INTPTR_T)])
    plan = fftw_mpi_plan_dft_r2c_3d(N, M, L, rin, cout, MPI_COMM_WORLD, ior(FFTW_ESTIMATE, FFTW_MPI_TRANSPOSED_OUT))
    if (.not. c_associated(plan)) call fail('fftw_mpi_plan_dft_r2c_3d returned NULL')
    do k = 1, local_N
      do j = 1, M
        do i = 1, L
          rin(i, j, k) = real(value_at(i, j, k + local_k_offset))
        end do
      end do
    end do
    call fftw_mpi_execute_dft_r2c(plan, rin, cout)

    cwhole = fftw_alloc_real(L * M * N)
    cspectrum = fftw_alloc_complex(Lc * M * N)
    call c_f_pointer(cwhole, whole, [L, M, N])
    call c_f_pointer(cspectrum, spectrum, [Lc, M, N])
    do k = 1, N
      do j = 1, M
        do i = 1, L
          whole(i, j, k) = real(value_at(i, j, k))
        end do
      end do
    end do
    serial = fftw_plan_dft_r2c_3d(int(N, C_INT), int(M, C_INT), int(L, C_INT), whole, spectrum, FFTW_ESTIMATE)
    call fftw_execute_dft_r2c(serial, whole, spectrum)
    scale = maxval(abs(spectrum))
    do j = 1, local_M
      do k = 1, N
        do i = 1, Lc
          if (abs(cout(i, k, j) - spectrum(i, j + local_j_offset, k)) > 1d-12 * scale) &
            call fail('3-D r2c transposed-out element')
        end do
      end do
    end do
    call fftw_destroy_plan(serial)
    call fftw_destroy_plan(plan)
    call fftw_free(cwhole)
    call fftw_free(cspectrum)
    call fftw_free(creal)
    call fftw_free(ccomplex)
  end subroutine real_3d_transposed

end program test_fftw_mpi_f03
